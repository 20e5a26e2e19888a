import { z } from 'zod';
import { sessionSchema } from './session';

/** An attachment's metadata in identity data. */
export const attachmentInfoSchema = z.object({
  id: z.string(),
  type: z.string(),
  contentType: z.string(),
  sizeBytes: z.number().int(),
});
/** Metadata of one attachment. */
export type AttachmentInfo = z.infer<typeof attachmentInfoSchema>;

// Person, document, match and provider output are delivered to the caller as the service sent
// them, so unknown fields are kept rather than silently dropped.
const looseRecord = z.looseObject({});

/** Verified identity data of a session. */
export const identityDataSchema = z.object({
  originatingProviderId: z.string().nullish(),
  originatingSubProviderId: z.string().nullish(),
  person: looseRecord.nullish(),
  document: looseRecord.nullish(),
  match: looseRecord.nullish(),
  attachments: z.array(attachmentInfoSchema).default([]),
  providerOutput: looseRecord.nullish(),
});
/** Identity data as returned by GetSessionResult. */
export type IdentityData = z.infer<typeof identityDataSchema>;

/** Answer of GetSessionResult. */
export const getSessionResultResponseSchema = z.object({
  session: sessionSchema,
  identityData: identityDataSchema.nullish(),
});
/** A session with its identity data (absent until it succeeded, and after redaction). */
export type GetSessionResultResponse = z.infer<typeof getSessionResultResponseSchema>;

/** Answer of GetAttachment: base64 content and its MIME type. */
export const getAttachmentResponseSchema = z.object({
  content: z.string(),
  contentType: z.string(),
});
/** One attachment's content. */
export type GetAttachmentResponse = z.infer<typeof getAttachmentResponseSchema>;
