import { z } from 'zod';

/** RFC 7807 problem details, the body of every error answer (`application/problem+json`). */
export const problemDetailsSchema = z.object({
  type: z.string().nullish(),
  title: z.string().nullish(),
  status: z.number().int().nullish(),
  detail: z.string().nullish(),
  instance: z.string().nullish(),
  traceId: z.string().nullish(),
  /** Per-property messages of a 400. */
  errors: z.record(z.string(), z.array(z.string())).nullish(),
});

/** Parsed problem details. */
export type ProblemDetails = z.infer<typeof problemDetailsSchema>;
