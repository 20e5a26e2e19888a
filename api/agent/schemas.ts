import { z } from 'zod';

/** Webhook types of the earlier platform. */
export const webhookTypes = ['Notification', 'DelegatedEndorser', 'Zapier'] as const;

/** A registered webhook (`WebhookContract`). */
export const webhookSchema = z.object({
  id: z.string(),
  url: z.string(),
  type: z.string(),
  enabled: z.boolean().optional(),
});
/** A webhook of the earlier platform. */
export type Webhook = z.infer<typeof webhookSchema>;

/** A schema of the earlier platform (`SchemaRecord`): a flat list of attribute names. */
export const schemaRecordSchema = z.object({
  id: z.string(),
  name: z.string(),
  version: z.string(),
  attributeNames: z.array(z.string()).default([]),
  createdAtUtc: z.string().nullish(),
  updatedAtUtc: z.string().nullish(),
});
/** An Anoncreds-era schema. */
export type SchemaRecord = z.infer<typeof schemaRecordSchema>;

const restrictionSchema = z.object({
  schemaId: z.string().nullish(),
  schemaIssuerDid: z.string().nullish(),
  schemaName: z.string().nullish(),
  schemaVersion: z.string().nullish(),
  issuerDid: z.string().nullish(),
  credentialDefinitionId: z.string().nullish(),
  value: z.object({ attributeName: z.string().nullish(), attributeValue: z.string().nullish() }).nullish(),
});

/** A verification policy (`VerificationPolicyContract`). */
export const verificationPolicySchema = z.object({
  policyId: z.string(),
  name: z.string(),
  version: z.string(),
  attributes: z
    .array(
      z.object({
        policyName: z.string(),
        attributeNames: z.array(z.string()),
        restrictions: z.array(restrictionSchema).nullish(),
      }),
    )
    .default([]),
  predicates: z
    .array(
      z.object({
        policyName: z.string(),
        attributeName: z.string(),
        predicateType: z.string(),
        predicateValue: z.number().int(),
        restrictions: z.array(restrictionSchema).nullish(),
      }),
    )
    .default([]),
  revocationRequirement: z
    .object({ validAt: z.string().nullish(), validNow: z.boolean().nullish() })
    .nullish(),
});
/** A verification policy of the earlier platform. */
export type VerificationPolicy = z.infer<typeof verificationPolicySchema>;
