import { type DestinationStream } from 'pino';

/** A pino destination that keeps every line written, raw and parsed (a line that is not JSON fails the test). */
export function logCapture(): {
  lines: Array<Record<string, unknown>>;
  raw: string[];
  destination: DestinationStream;
} {
  const lines: Array<Record<string, unknown>> = [];
  const raw: string[] = [];
  return {
    lines,
    raw,
    destination: {
      write(text: string) {
        for (const line of text.split('\n').filter(Boolean)) {
          raw.push(line);
          lines.push(JSON.parse(line) as Record<string, unknown>);
        }
      },
    },
  };
}
