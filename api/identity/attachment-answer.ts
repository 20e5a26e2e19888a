import { AnswerShapeError, type JsonToken } from '../http/json-tokens';

/** A GetAttachment answer read as it arrived: its content went to the consumer. */
export interface ReadAttachment<R> {
  contentType: string;
  /** What the consumer made of the content (where it stored it, for example). */
  stored: R;
}

const MAX_CONTENT_TYPE_CHARS = 255;
/** Base64 gathered before decoding: the parser's chunks are small, a store wants larger writes. */
const DECODE_CHARS = 64 * 1024;
const BASE64_CHARS = /^[A-Za-z0-9+/=]*$/;
const FINAL_GROUP = /^(?:[A-Za-z0-9+/]{4}|[A-Za-z0-9+/]{3}=|[A-Za-z0-9+/]{2}==)?$/;

/**
 * Reads `{"content": "<base64>", "contentType": "…"}` (in any order, other members skipped) from
 * its tokens, handing the decoded content to `consume` chunk by chunk.
 */
export async function readAttachmentAnswer<R>(
  tokens: AsyncIterator<JsonToken>,
  consume: (content: AsyncIterable<Buffer>) => Promise<R>,
): Promise<ReadAttachment<R>> {
  const next = async (): Promise<JsonToken> => {
    const token = await tokens.next();
    if (token.done) throw new AnswerShapeError('the answer ended early');
    return token.value;
  };
  if ((await next()).name !== 'startObject') throw new AnswerShapeError('(body): expected an object');
  let contentType: string | undefined;
  let stored: { value: R } | undefined;
  for (let token = await next(); token.name !== 'endObject'; token = await next()) {
    const key = token.name === 'keyValue' ? token.value : '';
    const value = await next();
    if (key === 'content' || key === 'contentType') {
      if (value.name !== 'startString') throw new AnswerShapeError(`${key}: expected a string`);
      if ((key === 'content' ? stored : contentType) !== undefined)
        throw new AnswerShapeError(`${key}: appears twice`);
    }
    if (key === 'content') {
      const reading = { ended: false };
      stored = { value: await consume(base64Content(next, reading)) };
      if (!reading.ended) throw new Error('the attachment consumer stopped before the end of the content');
    } else if (key === 'contentType') {
      contentType = await shortString(next, key);
    } else {
      await skipValue(value, next);
    }
  }
  if (!stored) throw new AnswerShapeError('content: required');
  if (contentType === undefined) throw new AnswerShapeError('contentType: required');
  return { contentType, stored: stored.value };
}

/** The bytes of a base64 string value, decoded in whole groups of four characters, 48 KiB at a time. */
async function* base64Content(
  next: () => Promise<JsonToken>,
  reading: { ended: boolean },
): AsyncGenerator<Buffer> {
  let pending = '';
  for (let token = await next(); token.name !== 'endString'; token = await next()) {
    if (token.name !== 'stringChunk' || !BASE64_CHARS.test(token.value))
      throw new AnswerShapeError('content: not base64');
    pending += token.value;
    const groups = wholeGroups(pending);
    if (pending.length - groups > 4) throw new AnswerShapeError('content: not base64');
    if (groups >= DECODE_CHARS) {
      yield Buffer.from(pending.slice(0, groups), 'base64');
      pending = pending.slice(groups);
    }
  }
  if (!FINAL_GROUP.test(pending.slice(wholeGroups(pending))))
    throw new AnswerShapeError('content: not base64');
  if (pending.length > 0) yield Buffer.from(pending, 'base64');
  reading.ended = true;
}

/** Length of the leading whole groups of four characters before any padding. */
function wholeGroups(base64: string): number {
  const padding = base64.indexOf('=');
  const decodable = padding < 0 ? base64.length : padding;
  return decodable - (decodable % 4);
}

async function shortString(next: () => Promise<JsonToken>, key: string): Promise<string> {
  let text = '';
  for (let token = await next(); token.name !== 'endString'; token = await next()) {
    if (token.name === 'stringChunk') text += token.value;
    if (text.length > MAX_CONTENT_TYPE_CHARS) throw new AnswerShapeError(`${key}: too long`);
  }
  return text;
}

/** Skips the rest of a value whose first token was `first`. */
async function skipValue(first: JsonToken, next: () => Promise<JsonToken>): Promise<void> {
  let depth = 0;
  for (let token = first; ; token = await next()) {
    if (token.name === 'startObject' || token.name === 'startArray' || token.name === 'startString')
      depth += 1;
    if (token.name === 'endObject' || token.name === 'endArray' || token.name === 'endString') depth -= 1;
    if (depth === 0) return;
  }
}
