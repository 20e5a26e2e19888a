import { type AuthorizeTarget } from '../../../agent-platform/domain/migration/authorize-request';
import { type ExpectedFlag, type ExpectedQuery } from './case-types';
import { type ConversionFlag } from '../../../agent-platform/domain/migration/schema-template';

/** Where the corpus's templates are published. */
export const SCHEMA_BASE = 'https://schemas.example.org/templates';

/** The flag every converted schema carries first: its ledger credential definition has no equivalent. */
export const CREDENTIAL_DEFINITION_FLAG: ExpectedFlag<ConversionFlag> = {
  concept: 'credential-definition',
  note: 'the earlier credential definition has no equivalent: the template is published at its URL',
};

/** Earlier schema ids (`<issuer_did>:2:<name>:<version>`) that policies of the corpus restrict to. */
export const schemaIds = {
  employeeBadge: 'did:sov:7Tqg6BwSSWapxgUDm9KKgg:2:Employee Badge:2.3',
  degreeV1: 'did:sov:UniRegistrar9VtHv3ZcY4:2:University Degree:1.0',
  degreeV2: 'did:sov:UniRegistrar9VtHv3ZcY4:2:University Degree:2.0',
  kyc: 'did:sov:BankKyc5yqGQ2pZrT8Ls:2:KYC:2.0',
  healthCard: 'did:sov:HealthIns3Wd8rKmPq1:2:Health Insurance Card:3.0.1',
  /** Not among the tenant's schemas: no template exists for it. */
  contractorPass: 'did:sov:Partner6cN2xLw0Qe7:2:Contractor Pass:1.0',
} as const;

/** The templates the tenant's schemas became, by earlier schema id (and one by `<name> <version>`). */
export const acmeTemplates: Readonly<Record<string, string>> = {
  [schemaIds.employeeBadge]: 'https://schemas.example.org/templates/Employee%20Badge/2.3',
  [schemaIds.degreeV1]: 'https://schemas.example.org/templates/University%20Degree/1.0',
  [schemaIds.degreeV2]: 'https://schemas.example.org/templates/University%20Degree/2.0',
  [schemaIds.kyc]: 'https://schemas.example.org/templates/KYC/2.0',
  [schemaIds.healthCard]: 'https://schemas.example.org/templates/Health%20Insurance%20Card/3.0.1',
  'Membership 2.1': 'https://schemas.example.org/templates/Membership/2.1',
};

/** The ecosystem most policies of the corpus move to. */
export const acmeTarget: AuthorizeTarget = {
  authUrl: 'https://auth.example.org/ecosystems/acme',
  clientId: 'acme-verifier',
  ecosystem: 'acme-trust',
  redirectUri: 'https://verifier.acme.example/callback',
  nonce: 'n-0S6_WzA2Mj',
  templates: acmeTemplates,
};

/** Where {@link acmeTarget}'s authorize requests go. */
export const ACME_ENDPOINT = 'https://auth.example.org/ecosystems/acme/authorize';

/** The query every authorize request to {@link acmeTarget} carries besides its claims. */
export const acmeQuery: ExpectedQuery = {
  response_type: 'code',
  scope: 'openid',
  client_id: 'acme-verifier',
  'service:ecosystem': 'acme-trust',
  redirect_uri: 'https://verifier.acme.example/callback',
  nonce: 'n-0S6_WzA2Mj',
};
