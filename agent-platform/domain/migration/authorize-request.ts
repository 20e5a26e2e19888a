/**
 * A restriction of the earlier platform's policies. The platform's API spells the issuer
 * `issuerDid`; the interface document's shape spells it `issuerID`: both are read.
 */
export interface EarlierRestriction {
  issuerID?: string | null;
  issuerDid?: string | null;
  schemaId?: string | null;
  schemaIssuerDid?: string | null;
  schemaName?: string | null;
  schemaVersion?: string | null;
  credentialDefinitionId?: string | null;
  value?: { attributeName?: string | null; attributeValue?: string | null } | null;
}

/** An Anoncreds predicate: `attributeName predicateType predicateValue`, proven without disclosing the value. */
export interface EarlierPredicate {
  policyName?: string;
  attributeName?: string;
  predicateType?: string;
  predicateValue?: number;
  restrictions?: EarlierRestriction[] | null;
}

/** A verification policy of the earlier platform. */
export interface EarlierPolicy {
  name: string;
  version: string;
  attributes?: Array<{
    policyName: string;
    attributeNames: string[];
    restrictions?: EarlierRestriction[] | null;
  }>;
  predicates?: EarlierPredicate[] | null;
  revocationRequirement?: { validNow?: boolean | null; validAt?: string | null } | null;
}

/** Where and as whom the current platform's verification runs. */
export interface AuthorizeTarget {
  /** The ecosystem's OIDC provider (`{auth_url}`); the request goes to `<authUrl>/authorize`. */
  authUrl: string;
  clientId: string;
  /** The ecosystem's name (`service:ecosystem`). */
  ecosystem: string;
  /** Where the holder comes back (absolute; registered at the service). */
  redirectUri: string;
  /** Fresh per verification: the one passed here is an example. */
  nonce: string;
  /**
   * Earlier schema ids, and `<name> <version>`s, with the credential templates they became
   * (restrictions to a schema, by id or by name and version, follow it).
   */
  templates?: Readonly<Record<string, string>>;
}

/** The query of `GET {auth_url}/authorize` (interface, part 4) and the claims to disclose. */
export interface AuthorizeQuery {
  response_type: 'code';
  scope: 'openid';
  client_id: string;
  'service:ecosystem': string;
  redirect_uri: string;
  nonce: string;
  /** OpenID Connect `claims` request parameter (JSON): every attribute to disclose, essential. */
  claims: string;
}

/** One group of attributes the holder must disclose (one earlier `attributes` entry). */
export interface Disclosure {
  group: string;
  attributes: string[];
  /** Credential templates the attributes must come from (from schema restrictions), when known. */
  templates?: string[];
}

/** An authorize request of the current platform, converted from an earlier policy. */
export interface AuthorizeRequest {
  /** `<authUrl>/authorize?<query>`. */
  url: string;
  query: AuthorizeQuery;
  disclose: Disclosure[];
}

/** Concepts of an earlier policy that the current platform has no equivalent for, or that changed. */
export const policyFlagConcepts = [
  'credential-definition',
  'accumulator-revocation',
  'anoncreds-predicate',
  'issuer-restriction',
  'schema-restriction',
  'attribute-value-restriction',
  'duplicate-attribute',
  'odd-attribute-name',
  'nothing-to-disclose',
] as const;

/** Something of a policy the conversion could not carry over as it was: never dropped silently. */
export interface PolicyFlag {
  concept: (typeof policyFlagConcepts)[number];
  /** The attribute group (`policyName`) concerned, when one is. */
  group?: string;
  attribute?: string;
  note: string;
}

/** A converted policy and what was flagged. */
export interface PolicyConversion {
  request: AuthorizeRequest;
  flags: PolicyFlag[];
}

const PLAIN_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * Converts an earlier verification policy into the authorize request of the current platform's
 * OpenID for Verifiable Presentations flow: the attributes to disclose become essential claims;
 * what has no equivalent (interface, part 1) is flagged with what to do instead: credential
 * definitions (none exist), accumulator revocation (status lists), Anoncreds predicates (no
 * range proof: the attribute is not requested, which would disclose its value), issuer
 * restrictions (ecosystem membership) and attribute-value restrictions.
 */
export function convertPolicy(policy: EarlierPolicy, target: AuthorizeTarget): PolicyConversion {
  const flags: PolicyFlag[] = [];
  const disclose: Disclosure[] = [];
  const requested = new Set<string>();
  for (const group of policy.attributes ?? []) {
    const attributes: string[] = [];
    for (const attribute of group.attributeNames) {
      if (requested.has(attribute)) {
        flags.push({
          concept: 'duplicate-attribute',
          group: group.policyName,
          attribute,
          note: attributes.includes(attribute)
            ? 'listed twice in this group; disclosed once'
            : 'requested by an earlier group too; disclosed once',
        });
        continue;
      }
      requested.add(attribute);
      attributes.push(attribute);
      if (!PLAIN_NAME.test(attribute))
        flags.push({
          concept: 'odd-attribute-name',
          group: group.policyName,
          attribute,
          note: 'kept as written: check the credential template names it the same',
        });
    }
    const templates = restrictionFlags(group.restrictions ?? [], group.policyName, target, flags);
    if (attributes.length > 0)
      disclose.push({
        group: group.policyName,
        attributes,
        ...(templates.length > 0 ? { templates } : {}),
      });
  }
  for (const predicate of policy.predicates ?? []) {
    const what = [predicate.attributeName, predicate.predicateType, predicate.predicateValue]
      .filter((part) => part !== undefined)
      .join(' ');
    flags.push({
      concept: 'anoncreds-predicate',
      ...(predicate.policyName ? { group: predicate.policyName } : {}),
      ...(predicate.attributeName ? { attribute: predicate.attributeName } : {}),
      note: `predicate "${what}" has no equivalent (no zero-knowledge range proof): not requested, as disclosing the value would reveal more than the proof did; check it in your service or drop it`,
    });
    restrictionFlags(predicate.restrictions ?? [], predicate.policyName, target, flags);
  }
  const revocation = policy.revocationRequirement;
  if (revocation && (revocation.validNow || revocation.validAt))
    flags.push({
      concept: 'accumulator-revocation',
      note: revocation.validAt
        ? `revocation checked at ${revocation.validAt} (accumulator registry): status lists show the current status only`
        : 'accumulator revocation registries are replaced by status lists: the current status is checked at presentation',
    });
  if (disclose.length === 0)
    flags.push({ concept: 'nothing-to-disclose', note: 'the policy asks for no attribute to be disclosed' });
  const query: AuthorizeQuery = {
    response_type: 'code',
    scope: 'openid',
    client_id: target.clientId,
    'service:ecosystem': target.ecosystem,
    redirect_uri: target.redirectUri,
    nonce: target.nonce,
    claims: JSON.stringify({
      id_token: Object.fromEntries([...requested].map((attribute) => [attribute, { essential: true }])),
    }),
  };
  const url = `${target.authUrl.replace(/\/+$/, '')}/authorize?${new URLSearchParams({ ...query }).toString()}`;
  return { request: { url, query, disclose }, flags };
}

/** Flags each restriction once per concept and group; returns the templates schema restrictions point to. */
function restrictionFlags(
  restrictions: EarlierRestriction[],
  group: string | undefined,
  target: AuthorizeTarget,
  flags: PolicyFlag[],
): string[] {
  const templates: string[] = [];
  const add = (flag: PolicyFlag) => {
    const repeated = flags.some(
      (f) => f.concept === flag.concept && f.group === flag.group && f.note === flag.note,
    );
    if (!repeated) flags.push(flag);
  };
  const at = group ? { group } : {};
  for (const restriction of restrictions) {
    // `||`: an empty spelling does not hide the other one.
    const issuer = restriction.issuerDid || restriction.issuerID || restriction.schemaIssuerDid;
    if (issuer)
      add({
        concept: 'issuer-restriction',
        ...at,
        note: `only credentials issued by ${issuer}: on the current platform the ecosystem's membership decides which issuers count; make sure ${issuer} is a member of ${target.ecosystem}`,
      });
    if (restriction.credentialDefinitionId)
      add({
        concept: 'credential-definition',
        ...at,
        note: `restricted to credential definition ${restriction.credentialDefinitionId}: credential definitions do not exist on the current platform`,
      });
    const schema =
      restriction.schemaId ??
      (restriction.schemaName
        ? `${restriction.schemaName}${restriction.schemaVersion ? ` ${restriction.schemaVersion}` : ''}`
        : undefined);
    if (schema) {
      const template =
        target.templates && Object.hasOwn(target.templates, schema) ? target.templates[schema] : undefined;
      if (template) {
        if (!templates.includes(template)) templates.push(template);
        // Listed in `disclose`, but the request itself cannot require it: never silently lost.
        add({
          concept: 'schema-restriction',
          ...at,
          note: `restricted to schema ${schema} (template ${template}): the authorize request cannot require a template; check the presented credential's template in your service`,
        });
      } else
        add({
          concept: 'schema-restriction',
          ...at,
          note: `restricted to schema ${schema}, which this migration did not convert: name its credential template by hand`,
        });
    }
    const value = restriction.value;
    if (value?.attributeName)
      add({
        concept: 'attribute-value-restriction',
        ...at,
        attribute: value.attributeName,
        note: `required ${value.attributeName} = ${value.attributeValue ?? ''}: the authorize request cannot require a value; check it in your service`,
      });
  }
  return templates;
}
