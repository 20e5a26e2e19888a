import { type Readable } from 'node:stream';
import Parser from 'stream-json/Parser';

/**
 * One token of a JSON text as stream-json's parser emits it with keys, numbers and literals
 * whole and string values in chunks (`startString`, `stringChunk`…, `endString`).
 */
export type JsonToken =
  | { name: 'startObject' | 'endObject' | 'startArray' | 'endArray' | 'startString' | 'endString' }
  | { name: 'nullValue'; value: null }
  | { name: 'trueValue'; value: true }
  | { name: 'falseValue'; value: false }
  | { name: 'keyValue' | 'stringChunk' | 'numberValue'; value: string };

/** Thrown by a token reader for JSON of the wrong shape; the core makes it a `MalformedResponseError`. */
export class AnswerShapeError extends Error {
  override readonly name = 'AnswerShapeError';
}

interface TokenOptions {
  maxBytes: number;
  tooLarge(): Error;
  transportError(error: unknown): unknown;
  malformed(cause: unknown): Error;
}

/**
 * The tokens of a body as it arrives, at most `maxBytes` of it. A transport failure, an
 * oversized body and invalid JSON reject `next()` with the error the options make of them.
 * Stream-json rather than a hand-written scanner: it streams one long string value in chunks,
 * which `JSON.parse` and the buffering parsers cannot.
 */
export function jsonTokens(body: Readable, options: TokenOptions): AsyncIterator<JsonToken> {
  const parser = new Parser({
    packKeys: true,
    streamKeys: false,
    packStrings: false,
    packNumbers: true,
    streamNumbers: false,
  });
  let failure: unknown;
  const fail = (error: unknown) => {
    if (failure !== undefined) return;
    failure = error;
    body.destroy();
    parser.destroy(error instanceof Error ? error : new Error(String(error)));
  };
  let size = 0;
  body.on('data', (chunk: Buffer) => {
    size += chunk.length;
    if (size > options.maxBytes) fail(options.tooLarge());
  });
  body.on('error', (error) => fail(options.transportError(error)));
  body.pipe(parser);
  const tokens = parser[Symbol.asyncIterator]() as AsyncIterator<JsonToken>;
  return {
    async next() {
      try {
        return await tokens.next();
      } catch (error) {
        throw failure instanceof Error ? failure : options.malformed(error);
      }
    },
    return() {
      body.destroy();
      parser.destroy();
      return Promise.resolve({ done: true, value: undefined });
    },
  };
}
