import { type Logger } from 'pino';
import { processLogger } from './logger';

/** The receiver's operational lines as JSON log events (`component: receiver`), redaction applied. */
export function receiverLog(logger: Logger = processLogger()): (line: string) => void {
  const receiver = logger.child({ component: 'receiver' });
  return (line) => receiver.info(line);
}
