import {
  type AuthorizeRequest,
  convertPolicy,
  type EarlierPolicy,
  type PolicyFlag,
} from './authorize-request';
import { redirectUriFor } from './redirect-uris';
import {
  type ConversionFlag,
  type CredentialTemplate,
  convertSchema,
  type EarlierSchema,
  type TemplateType,
} from './schema-template';

/** Where a tenant moves to, and as whom (the migration's settings). */
export interface MigrationTarget {
  /** The ecosystem's OIDC provider (`{auth_url}`). */
  authUrl: string;
  /** Where credential templates are published (`{schema_base}`). */
  schemaBaseUrl: string;
  clientId: string;
  /** The ecosystem's name. */
  ecosystem: string;
  /** Where holders come back; `{policy}` becomes each policy's slug. */
  redirectUri: string;
  /** Attribute types by name (a mapping file): they win over inference. */
  mapping?: Record<string, TemplateType>;
}

/** A webhook of the earlier platform as the migration sees it (the receiver's token hidden). */
export interface InventoryWebhook {
  id: string;
  url: string;
  type: string;
  enabled: boolean;
}

/** What a tenant has on the earlier platform. */
export interface EarlierInventory {
  webhooks: InventoryWebhook[];
  schemas: Array<EarlierSchema & { id: string }>;
  policies: Array<EarlierPolicy & { policyId: string }>;
}

/** A schema converted to a credential template (published by the tenant at its id: no API offers it). */
export interface TemplatePlan {
  schemaId: string;
  template: CredentialTemplate;
  flags: ConversionFlag[];
}

/** A policy converted to an authorize request. */
export interface AuthorizePlan {
  policyId: string;
  name: string;
  version: string;
  request: AuthorizeRequest;
  flags: PolicyFlag[];
}

/** Everything the migration would do, before it looks at the current platform. */
export interface MigrationPlan {
  templates: TemplatePlan[];
  authorizeRequests: AuthorizePlan[];
  /** The redirect URIs the authorize requests need, each once, in policy order. */
  redirectUris: string[];
  /** The earlier webhooks the cut-over disables (the enabled ones), in inventory order. */
  webhooksToDisable: string[];
}

/**
 * Converts a tenant's inventory (pure): schemas into templates, policies into authorize requests
 * (restrictions to a converted schema follow its template), the redirect URIs they need, and the
 * webhooks to disable. `nonce` gives each policy's example nonce.
 */
export function planMigration(
  inventory: EarlierInventory,
  target: MigrationTarget,
  nonce: (policyId: string) => string,
): MigrationPlan {
  const templates = inventory.schemas.map((schema) => {
    const { template, flags } = convertSchema(schema, {
      schemaBaseUrl: target.schemaBaseUrl,
      ...(target.mapping ? { mapping: target.mapping } : {}),
    });
    return { schemaId: schema.id, template, flags };
  });
  // Restrictions name a schema by its id, or by its name and version.
  const templateIds = Object.fromEntries(
    inventory.schemas.flatMap(({ id, name, version }, i) => {
      const template = templates[i]?.template.id;
      return template
        ? [
            [id, template],
            [`${name} ${version}`, template],
          ]
        : [];
    }),
  );
  const authorizeRequests = inventory.policies.map((policy) => {
    const { request, flags } = convertPolicy(policy, {
      authUrl: target.authUrl,
      clientId: target.clientId,
      ecosystem: target.ecosystem,
      redirectUri: redirectUriFor(target.redirectUri, policy.name),
      nonce: nonce(policy.policyId),
      templates: templateIds,
    });
    return { policyId: policy.policyId, name: policy.name, version: policy.version, request, flags };
  });
  const redirectUris = [...new Set(authorizeRequests.map((plan) => plan.request.query.redirect_uri))];
  const webhooksToDisable = inventory.webhooks.filter((webhook) => webhook.enabled).map((w) => w.id);
  return { templates, authorizeRequests, redirectUris, webhooksToDisable };
}
