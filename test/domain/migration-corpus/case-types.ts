import {
  type AuthorizeQuery,
  type AuthorizeTarget,
  type Disclosure,
  type EarlierPolicy,
  type PolicyFlag,
} from '../../../agent-platform/domain/migration/authorize-request';
import {
  type ConversionFlag,
  type CredentialTemplate,
  type EarlierSchema,
  type TemplateType,
} from '../../../agent-platform/domain/migration/schema-template';

/**
 * A flag as a case expects it: every field exact but the note, which is matched on its key
 * facts (a string it contains, or a pattern).
 */
export type ExpectedFlag<Flag extends { note: string }> = Omit<Flag, 'note'> & { note: string | RegExp };

/** An earlier schema and the credential template it must become, written out by hand. */
export interface SchemaCase {
  description: string;
  input: { schema: EarlierSchema; schemaBaseUrl: string; mapping?: Record<string, TemplateType> };
  expected: {
    id: string;
    /** In the order of the schema's first mention of each attribute. */
    properties: CredentialTemplate['properties'];
    flags: Array<ExpectedFlag<ConversionFlag>>;
  };
}

/** The query of `GET {auth_url}/authorize` without the claims (interface, part 4). */
export type ExpectedQuery = Omit<AuthorizeQuery, 'claims'>;

/** An earlier policy and the authorize request it must become, written out by hand. */
export interface PolicyCase {
  description: string;
  input: { policy: EarlierPolicy; target: AuthorizeTarget };
  expected: {
    /** The URL without its query: `<authUrl>/authorize`. */
    endpoint: string;
    query: ExpectedQuery;
    /** The `claims` parameter, parsed; attributes in the order they are first requested. */
    claims: { id_token: Record<string, { essential: true }> };
    disclose: Disclosure[];
    flags: Array<ExpectedFlag<PolicyFlag>>;
  };
}
