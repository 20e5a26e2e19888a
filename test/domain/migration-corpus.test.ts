import { convertPolicy } from '../../agent-platform/domain/migration/authorize-request';
import {
  type EarlierInventory,
  type MigrationTarget,
  planMigration,
} from '../../agent-platform/domain/migration/migration-plan';
import {
  coveringRedirectUri,
  policySlug,
  redirectUriFor,
} from '../../agent-platform/domain/migration/redirect-uris';
import { convertSchema } from '../../agent-platform/domain/migration/schema-template';
import { type ExpectedFlag } from './migration-corpus/case-types';
import { disclosurePolicies } from './migration-corpus/policies-disclosure';
import { restrictionPolicies } from './migration-corpus/policies-restrictions';
import { coveringCases } from './migration-corpus/redirect-uris';
import { everydaySchemas } from './migration-corpus/schemas-everyday';
import { nameSchemas } from './migration-corpus/schemas-names';

const schemaCases = [...everydaySchemas, ...nameSchemas];
const policyCases = [...disclosurePolicies, ...restrictionPolicies];

/** Expected flags as jest compares them: every field exact, each note on its key facts. */
function flagsLike<Flag extends { note: string }>(flags: Array<ExpectedFlag<Flag>>) {
  return flags.map(({ note, ...flag }) => ({
    ...flag,
    note: typeof note === 'string' ? expect.stringContaining(note) : expect.stringMatching(note),
  }));
}

describe('the converter corpus', () => {
  it('holds at least 20 earlier schemas and 20 earlier policies, each described once', () => {
    expect(schemaCases.length).toBeGreaterThanOrEqual(20);
    expect(policyCases.length).toBeGreaterThanOrEqual(20);
    const descriptions = [...schemaCases, ...policyCases].map((c) => c.description);
    expect(new Set(descriptions).size).toBe(descriptions.length);
  });
});

describe.each(schemaCases)('convertSchema: $description', ({ input, expected }) => {
  const convert = () => convertSchema(input.schema, input);

  it('publishes the template at <schema base>/<name>/<version>', () => {
    expect(convert().template.id).toBe(expected.id);
  });

  it('keeps each attribute once, in the order the schema lists it', () => {
    expect(Object.keys(convert().template.properties)).toEqual(Object.keys(expected.properties));
  });

  it('types and describes each attribute', () => {
    const { properties } = convert().template;
    for (const [name, property] of Object.entries(expected.properties))
      expect({ name, ...properties[name] }).toStrictEqual({ name, ...property });
  });

  it('flags exactly what it could not carry over as it was', () => {
    expect(convert().flags).toStrictEqual(flagsLike(expected.flags));
  });
});

describe.each(policyCases)('convertPolicy: $description', ({ input, expected }) => {
  const convert = () => convertPolicy(input.policy, input.target);
  const params = () => new URL(convert().request.url).searchParams;

  it('sends the holder to GET <auth_url>/authorize', () => {
    const url = new URL(convert().request.url);
    expect(`${url.origin}${url.pathname}`).toBe(expected.endpoint);
    expect(url.hash).toBe('');
  });

  it('carries exactly the parameters of the interface, and the claims', () => {
    expect([...params().keys()]).toEqual([
      'response_type',
      'scope',
      'client_id',
      'service:ecosystem',
      'redirect_uri',
      'nonce',
      'claims',
    ]);
  });

  it('asks for a code, openid, as the client, in the ecosystem, back to the redirect URI, with the nonce', () => {
    const query = params();
    expect(query.get('response_type')).toBe(expected.query.response_type);
    expect(query.get('scope')).toBe(expected.query.scope);
    expect(query.get('client_id')).toBe(expected.query.client_id);
    expect(query.get('service:ecosystem')).toBe(expected.query['service:ecosystem']);
    expect(query.get('redirect_uri')).toBe(expected.query.redirect_uri);
    expect(query.get('nonce')).toBe(expected.query.nonce);
  });

  it('requests each attribute to disclose once, as an essential claim, in the order first asked', () => {
    const claims = params().get('claims') ?? '';
    expect(JSON.parse(claims)).toStrictEqual(expected.claims);
    expect(claims).toBe(JSON.stringify(expected.claims));
  });

  it('returns the query its URL carries', () => {
    expect(convert().request.query).toStrictEqual({
      ...expected.query,
      claims: JSON.stringify(expected.claims),
    });
  });

  it('lists the groups to disclose, with the templates their schema restrictions became', () => {
    expect(convert().request.disclose).toStrictEqual(expected.disclose);
  });

  it('flags exactly what has no equivalent, never dropping it', () => {
    expect(convert().flags).toStrictEqual(flagsLike(expected.flags));
  });
});

describe('coveringRedirectUri', () => {
  it.each(coveringCases)('$description', ({ needed, registered, expected }) => {
    expect(coveringRedirectUri(needed, registered)).toBe(expected);
  });
});

describe('policySlug', () => {
  it.each([
    ['Driver licence check', 'driver-licence-check'],
    ['Age ≥ 18 (KYC)', 'age-18-kyc'],
    ['  --Employee Check!--  ', 'employee-check'],
    ['KYC_v2.0', 'kyc-v2-0'],
    ['***', 'policy'],
    ['', 'policy'],
  ])('%j → %j', (name, slug) => {
    expect(policySlug(name)).toBe(slug);
  });
});

describe('redirectUriFor', () => {
  it('puts the policy slug where the template says {policy}', () => {
    expect(redirectUriFor('https://verifier.acme.example/callback/{policy}', 'Employee Check!')).toBe(
      'https://verifier.acme.example/callback/employee-check',
    );
  });

  it('replaces every {policy}', () => {
    expect(redirectUriFor('https://verifier.acme.example/{policy}/done?from={policy}', 'KYC')).toBe(
      'https://verifier.acme.example/kyc/done?from=kyc',
    );
  });

  it('keeps a template without {policy} as it is', () => {
    expect(redirectUriFor('https://verifier.acme.example/callback', 'KYC')).toBe(
      'https://verifier.acme.example/callback',
    );
  });
});

describe('planMigration', () => {
  const employeeSchemaId = 'did:sov:7Tqg6BwSSWapxgUDm9KKgg:2:Employee Badge:2.3';
  const membershipSchemaId = 'did:sov:7Tqg6BwSSWapxgUDm9KKgg:2:Membership:2.1';
  const inventory: EarlierInventory = {
    webhooks: [
      { id: 'wh-1', url: 'https://hooks.acme.example/agent', type: 'Notification', enabled: true },
      { id: 'wh-2', url: 'https://old.acme.example/agent', type: 'Notification', enabled: false },
      { id: 'wh-3', url: 'https://endorser.acme.example/hook', type: 'Endorser', enabled: true },
    ],
    schemas: [
      {
        id: employeeSchemaId,
        name: 'Employee Badge',
        version: '2.3',
        attr_names: ['employeeId', 'startDate'],
      },
      { id: membershipSchemaId, name: 'Membership', version: '2.1', attr_names: ['memberId', 'level'] },
    ],
    policies: [
      {
        policyId: 'pol-employee',
        name: 'Employee check',
        version: '1.0',
        attributes: [
          {
            policyName: 'employee',
            attributeNames: ['employeeId'],
            restrictions: [{ schemaId: employeeSchemaId }],
          },
        ],
      },
      {
        policyId: 'pol-member',
        name: 'Membership check',
        version: '1.0',
        attributes: [
          {
            policyName: 'member',
            attributeNames: ['memberId', 'level'],
            restrictions: [{ schemaName: 'Membership', schemaVersion: '2.1' }],
          },
        ],
      },
      {
        policyId: 'pol-employee-v2',
        name: 'Employee Check!',
        version: '2.0',
        attributes: [
          {
            policyName: 'employee',
            attributeNames: ['employeeId'],
            restrictions: [{ schemaId: 'did:sov:Partner6cN2xLw0Qe7:2:Contractor Pass:1.0' }],
          },
        ],
      },
    ],
  };
  const target: MigrationTarget = {
    authUrl: 'https://auth.example.org/ecosystems/acme',
    schemaBaseUrl: 'https://schemas.example.org/templates',
    clientId: 'acme-verifier',
    ecosystem: 'acme-trust',
    redirectUri: 'https://verifier.acme.example/callback/{policy}',
    mapping: { level: 'number' },
  };
  const plan = () => planMigration(inventory, target, (policyId) => `nonce-${policyId}`);

  it('converts each schema into its template, types from the mapping first', () => {
    expect(plan().templates.map(({ schemaId, template }) => ({ schemaId, template }))).toStrictEqual([
      {
        schemaId: employeeSchemaId,
        template: {
          id: 'https://schemas.example.org/templates/Employee%20Badge/2.3',
          properties: expect.objectContaining({
            employeeId: { type: 'string', description: 'employeeId (from Employee Badge 2.3)' },
            startDate: { type: 'datetime', description: 'startDate (from Employee Badge 2.3)' },
          }),
        },
      },
      {
        schemaId: membershipSchemaId,
        template: {
          id: 'https://schemas.example.org/templates/Membership/2.1',
          properties: expect.objectContaining({
            memberId: { type: 'string', description: 'memberId (from Membership 2.1)' },
            level: { type: 'number', description: 'level (from Membership 2.1)' },
          }),
        },
      },
    ]);
  });

  it('lets restrictions to a converted schema, by id or by name and version, follow its template', () => {
    const [employee, member, employeeV2] = plan().authorizeRequests;
    expect(employee?.request.disclose).toStrictEqual([
      {
        group: 'employee',
        attributes: ['employeeId'],
        templates: ['https://schemas.example.org/templates/Employee%20Badge/2.3'],
      },
    ]);
    expect(member?.request.disclose).toStrictEqual([
      {
        group: 'member',
        attributes: ['memberId', 'level'],
        templates: ['https://schemas.example.org/templates/Membership/2.1'],
      },
    ]);
    // Followed, and still flagged: the authorize request itself cannot require a template.
    expect(employee?.flags.map(({ concept, group, note }) => ({ concept, group, note }))).toStrictEqual([
      {
        concept: 'schema-restriction',
        group: 'employee',
        note: expect.stringContaining(
          '(template https://schemas.example.org/templates/Employee%20Badge/2.3): the authorize request cannot require a template',
        ),
      },
    ]);
    expect(member?.flags.map(({ note }) => note)).toStrictEqual([
      expect.stringContaining('(template https://schemas.example.org/templates/Membership/2.1)'),
    ]);
    expect(employeeV2?.flags.map(({ concept, group, note }) => ({ concept, group, note }))).toStrictEqual([
      { concept: 'schema-restriction', group: 'employee', note: expect.stringContaining('did not convert') },
    ]);
  });

  it('keeps each policy’s id, name and version, and gives it the nonce of its id', () => {
    expect(
      plan().authorizeRequests.map(({ policyId, name, version, request }) => ({
        policyId,
        name,
        version,
        nonce: request.query.nonce,
      })),
    ).toStrictEqual([
      { policyId: 'pol-employee', name: 'Employee check', version: '1.0', nonce: 'nonce-pol-employee' },
      { policyId: 'pol-member', name: 'Membership check', version: '1.0', nonce: 'nonce-pol-member' },
      {
        policyId: 'pol-employee-v2',
        name: 'Employee Check!',
        version: '2.0',
        nonce: 'nonce-pol-employee-v2',
      },
    ]);
  });

  it('sends each policy back to its own redirect URI, and needs each URI once', () => {
    const { authorizeRequests, redirectUris } = plan();
    expect(authorizeRequests.map(({ request }) => request.query.redirect_uri)).toStrictEqual([
      'https://verifier.acme.example/callback/employee-check',
      'https://verifier.acme.example/callback/membership-check',
      'https://verifier.acme.example/callback/employee-check',
    ]);
    expect(redirectUris).toStrictEqual([
      'https://verifier.acme.example/callback/employee-check',
      'https://verifier.acme.example/callback/membership-check',
    ]);
  });

  it('needs one redirect URI for all policies when the template has no {policy}', () => {
    const fixed = planMigration(
      inventory,
      { ...target, redirectUri: 'https://verifier.acme.example/callback' },
      () => 'n',
    );
    expect(fixed.redirectUris).toStrictEqual(['https://verifier.acme.example/callback']);
  });

  it('disables only the enabled webhooks, in inventory order', () => {
    expect(plan().webhooksToDisable).toStrictEqual(['wh-1', 'wh-3']);
  });

  it('plans nothing for an empty inventory', () => {
    expect(planMigration({ webhooks: [], schemas: [], policies: [] }, target, () => 'n')).toStrictEqual({
      templates: [],
      authorizeRequests: [],
      redirectUris: [],
      webhooksToDisable: [],
    });
  });
});
