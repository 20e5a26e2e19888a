import { type Payload } from '@temporalio/common';
import { z } from 'zod';

/** Standard or URL-safe base64, padded or not: what proto3 JSON readers accept for `bytes`. */
const base64 = z.string().regex(/^[A-Za-z0-9+/_-]*={0,2}$/, 'must be base64');

/**
 * One `temporal.api.common.v1.Payload` in proto3 JSON. `z.object`: fields newer than this schema
 * (e.g. `externalPayloads`) are dropped rather than refused, so a newer UI or CLI still works.
 */
export const payloadJsonSchema = z.object({
  metadata: z.record(z.string(), base64).nullish(),
  data: base64.nullish(),
});

/** A payload as the codec server protocol carries it: metadata values and data in base64. */
export type PayloadJson = z.infer<typeof payloadJsonSchema>;

/**
 * The body of `POST /encode` and `POST /decode`, asked and answered. Proto3 JSON leaves out an
 * empty list: `{}` is a batch of none (the Temporal CLI sends it for events without payloads).
 */
export const codecBodySchema = z.strictObject({ payloads: z.array(payloadJsonSchema).default([]) });

/** The payloads of a codec server request or answer. */
export type CodecBody = z.infer<typeof codecBodySchema>;

/** Thrown when a codec server request body is not the protocol's JSON; the message never quotes it. */
export class CodecBodyError extends Error {
  override readonly name = 'CodecBodyError';
}

const MAX_ISSUES = 3;

function pathText(path: readonly PropertyKey[]): string {
  return path.reduce<string>((text, segment) => {
    if (typeof segment === 'number') return `${text}[${segment}]`;
    return text === '' ? String(segment) : `${text}.${String(segment)}`;
  }, '');
}

/** Parses a request body into payloads; {@link CodecBodyError} names what is wrong. */
export function parseCodecBody(body: Buffer): Payload[] {
  let json: unknown;
  try {
    json = JSON.parse(body.toString('utf8'));
  } catch {
    // The parser's message quotes the body: never echo it.
    throw new CodecBodyError('the body is not JSON');
  }
  const parsed = codecBodySchema.safeParse(json);
  if (!parsed.success) {
    const issues = parsed.error.issues
      .slice(0, MAX_ISSUES)
      .map((issue) => `${issue.path.length > 0 ? pathText(issue.path) : 'body'}: ${issue.message}`);
    throw new CodecBodyError(
      `the body must be {"payloads":[{"metadata":{…},"data":"…"}]}: ${issues.join('; ')}`,
    );
  }
  return parsed.data.payloads.map(payloadFromJson);
}

/** A payload from its proto3 JSON form. */
export function payloadFromJson({ metadata, data }: PayloadJson): Payload {
  return {
    metadata: Object.fromEntries(
      Object.entries(metadata ?? {}).map(([name, value]) => [name, Buffer.from(value, 'base64')]),
    ),
    data: Buffer.from(data ?? '', 'base64'),
  };
}

/** The proto3 JSON form of a payload (other fields than metadata and data are not carried). */
export function payloadToJson({ metadata, data }: Payload): PayloadJson {
  return {
    metadata: Object.fromEntries(
      Object.entries(metadata ?? {}).map(([name, value]) => [name, Buffer.from(value).toString('base64')]),
    ),
    data: Buffer.from(data ?? []).toString('base64'),
  };
}
