import { ACME_ENDPOINT, acmeQuery, acmeTarget, acmeTemplates, schemaIds } from './acme';
import { type PolicyCase } from './case-types';

/** Policies that test what is disclosed: duplicates, odd names, empty policies, revocation requirements, the target. */
export const disclosurePolicies: PolicyCase[] = [
  {
    description: 'a policy with an equivalent for everything: attributes disclosed, nothing flagged',
    input: {
      policy: {
        name: 'Conference entry',
        version: '1.0',
        attributes: [
          { policyName: 'attendee', attributeNames: ['full_name', 'ticket_id'], restrictions: [] },
        ],
      },
      target: acmeTarget,
    },
    expected: {
      endpoint: ACME_ENDPOINT,
      query: acmeQuery,
      claims: { id_token: { full_name: { essential: true }, ticket_id: { essential: true } } },
      disclose: [{ group: 'attendee', attributes: ['full_name', 'ticket_id'] }],
      flags: [],
    },
  },
  {
    description: 'a driver licence check: the issuer restriction and current-revocation requirement flagged',
    input: {
      policy: {
        name: 'Driver licence check',
        version: '1.0',
        attributes: [
          {
            policyName: 'licence',
            attributeNames: ['family_name', 'given_name', 'document_number', 'driving_privileges'],
            restrictions: [{ issuerDid: 'did:sov:DMVq7Ys2Lk9Pd3Rr' }],
          },
        ],
        revocationRequirement: { validNow: true },
      },
      target: acmeTarget,
    },
    expected: {
      endpoint: ACME_ENDPOINT,
      query: acmeQuery,
      claims: {
        id_token: {
          family_name: { essential: true },
          given_name: { essential: true },
          document_number: { essential: true },
          driving_privileges: { essential: true },
        },
      },
      disclose: [
        {
          group: 'licence',
          attributes: ['family_name', 'given_name', 'document_number', 'driving_privileges'],
        },
      ],
      flags: [
        {
          concept: 'issuer-restriction',
          group: 'licence',
          note: /only credentials issued by did:sov:DMVq7Ys2Lk9Pd3Rr: .*membership.*make sure did:sov:DMVq7Ys2Lk9Pd3Rr is a member of acme-trust/,
        },
        { concept: 'accumulator-revocation', note: 'replaced by status lists' },
      ],
    },
  },
  {
    description:
      'duplicates across groups and within a group disclosed once, each reported with the group that repeats it',
    input: {
      policy: {
        name: 'Onboarding KYC',
        version: '3',
        attributes: [
          {
            policyName: 'person',
            attributeNames: ['first_name', 'last_name', 'birthdate'],
            restrictions: [{ schemaId: schemaIds.kyc }],
          },
          { policyName: 'address', attributeNames: ['street', 'city', 'first_name'] },
          { policyName: 'contact', attributeNames: ['email', 'phone', 'email'] },
        ],
      },
      target: acmeTarget,
    },
    expected: {
      endpoint: ACME_ENDPOINT,
      query: acmeQuery,
      claims: {
        id_token: {
          first_name: { essential: true },
          last_name: { essential: true },
          birthdate: { essential: true },
          street: { essential: true },
          city: { essential: true },
          email: { essential: true },
          phone: { essential: true },
        },
      },
      disclose: [
        {
          group: 'person',
          attributes: ['first_name', 'last_name', 'birthdate'],
          templates: ['https://schemas.example.org/templates/KYC/2.0'],
        },
        { group: 'address', attributes: ['street', 'city'] },
        { group: 'contact', attributes: ['email', 'phone'] },
      ],
      flags: [
        {
          concept: 'schema-restriction',
          group: 'person',
          note: 'restricted to schema did:sov:BankKyc5yqGQ2pZrT8Ls:2:KYC:2.0 (template https://schemas.example.org/templates/KYC/2.0): the authorize request cannot require a template',
        },
        {
          concept: 'duplicate-attribute',
          group: 'address',
          attribute: 'first_name',
          note: 'requested by an earlier group too; disclosed once',
        },
        {
          concept: 'duplicate-attribute',
          group: 'contact',
          attribute: 'email',
          note: 'listed twice in this group; disclosed once',
        },
      ],
    },
  },
  {
    description:
      'a group whose attributes all came earlier discloses nothing of its own, yet its restrictions are still flagged',
    input: {
      policy: {
        name: 'Identity re-check',
        version: '1.0',
        attributes: [
          {
            policyName: 'identity',
            attributeNames: ['given_name', 'family_name'],
            restrictions: [{ issuerDid: 'did:web:id.gov.example' }],
          },
          {
            policyName: 'identity-again',
            attributeNames: ['family_name', 'given_name'],
            restrictions: [{ issuerDid: 'did:web:bank.example' }],
          },
        ],
      },
      target: acmeTarget,
    },
    expected: {
      endpoint: ACME_ENDPOINT,
      query: acmeQuery,
      claims: { id_token: { given_name: { essential: true }, family_name: { essential: true } } },
      disclose: [{ group: 'identity', attributes: ['given_name', 'family_name'] }],
      flags: [
        {
          concept: 'issuer-restriction',
          group: 'identity',
          note: 'only credentials issued by did:web:id.gov.example',
        },
        {
          concept: 'duplicate-attribute',
          group: 'identity-again',
          attribute: 'family_name',
          note: 'requested by an earlier group too',
        },
        {
          concept: 'duplicate-attribute',
          group: 'identity-again',
          attribute: 'given_name',
          note: 'requested by an earlier group too',
        },
        {
          concept: 'issuer-restriction',
          group: 'identity-again',
          note: 'only credentials issued by did:web:bank.example',
        },
      ],
    },
  },
  {
    description: 'odd attribute names requested as written (claims keep them exactly) and each reported',
    input: {
      policy: {
        name: 'Legacy import check',
        version: '0.9',
        attributes: [
          {
            policyName: 'legacy',
            attributeNames: ['e-mail address', 'home.city', 'Straße', '2fa_enabled', ''],
          },
        ],
      },
      target: acmeTarget,
    },
    expected: {
      endpoint: ACME_ENDPOINT,
      query: acmeQuery,
      claims: {
        id_token: {
          'e-mail address': { essential: true },
          'home.city': { essential: true },
          Straße: { essential: true },
          '2fa_enabled': { essential: true },
          '': { essential: true },
        },
      },
      disclose: [
        { group: 'legacy', attributes: ['e-mail address', 'home.city', 'Straße', '2fa_enabled', ''] },
      ],
      flags: [
        {
          concept: 'odd-attribute-name',
          group: 'legacy',
          attribute: 'e-mail address',
          note: 'kept as written',
        },
        { concept: 'odd-attribute-name', group: 'legacy', attribute: 'home.city', note: 'kept as written' },
        { concept: 'odd-attribute-name', group: 'legacy', attribute: 'Straße', note: 'kept as written' },
        { concept: 'odd-attribute-name', group: 'legacy', attribute: '2fa_enabled', note: 'kept as written' },
        { concept: 'odd-attribute-name', group: 'legacy', attribute: '', note: 'kept as written' },
      ],
    },
  },
  {
    description: 'an empty policy: an authorize request that asks for nothing, flagged',
    input: { policy: { name: 'Empty', version: '1' }, target: acmeTarget },
    expected: {
      endpoint: ACME_ENDPOINT,
      query: acmeQuery,
      claims: { id_token: {} },
      disclose: [],
      flags: [{ concept: 'nothing-to-disclose', note: 'the policy asks for no attribute to be disclosed' }],
    },
  },
  {
    description:
      'revocation not required (`validNow: false`), null restrictions and predicates: nothing flagged',
    input: {
      policy: {
        name: 'Newsletter signup',
        version: '1.0',
        attributes: [{ policyName: 'contact', attributeNames: ['email'], restrictions: null }],
        predicates: null,
        revocationRequirement: { validNow: false },
      },
      target: acmeTarget,
    },
    expected: {
      endpoint: ACME_ENDPOINT,
      query: acmeQuery,
      claims: { id_token: { email: { essential: true } } },
      disclose: [{ group: 'contact', attributes: ['email'] }],
      flags: [],
    },
  },
  {
    description:
      'revocation at a past moment (`validAt`): flagged, status lists only show the current status',
    input: {
      policy: {
        name: 'Historic employment',
        version: '1.0',
        attributes: [{ policyName: 'employment', attributeNames: ['employeeId', 'jobTitle', 'startDate'] }],
        revocationRequirement: { validAt: '2023-12-31T23:59:59Z' },
      },
      target: acmeTarget,
    },
    expected: {
      endpoint: ACME_ENDPOINT,
      query: acmeQuery,
      claims: {
        id_token: {
          employeeId: { essential: true },
          jobTitle: { essential: true },
          startDate: { essential: true },
        },
      },
      disclose: [{ group: 'employment', attributes: ['employeeId', 'jobTitle', 'startDate'] }],
      flags: [
        {
          concept: 'accumulator-revocation',
          note: /revocation checked at 2023-12-31T23:59:59Z .*status lists show the current status only/,
        },
      ],
    },
  },
  {
    description: 'both `validNow` and `validAt`: one flag, naming the moment',
    input: {
      policy: {
        name: 'Tax residence',
        version: '2',
        attributes: [{ policyName: 'residence', attributeNames: ['tax_id', 'country'] }],
        revocationRequirement: { validNow: true, validAt: '2024-06-30T00:00:00Z' },
      },
      target: acmeTarget,
    },
    expected: {
      endpoint: ACME_ENDPOINT,
      query: acmeQuery,
      claims: { id_token: { tax_id: { essential: true }, country: { essential: true } } },
      disclose: [{ group: 'residence', attributes: ['tax_id', 'country'] }],
      flags: [{ concept: 'accumulator-revocation', note: 'revocation checked at 2024-06-30T00:00:00Z' }],
    },
  },
  {
    description:
      'null everywhere, as the earlier API answers (`validNow: null`, a restriction of nulls): nothing flagged',
    input: {
      policy: {
        name: 'Gym access',
        version: '1.0',
        attributes: [
          {
            policyName: 'member',
            attributeNames: ['memberId', 'level'],
            restrictions: [
              {
                issuerDid: null,
                issuerID: null,
                schemaId: null,
                schemaIssuerDid: null,
                schemaName: null,
                schemaVersion: null,
                credentialDefinitionId: null,
                value: null,
              },
            ],
          },
        ],
        predicates: [],
        revocationRequirement: { validNow: null, validAt: null },
      },
      target: acmeTarget,
    },
    expected: {
      endpoint: ACME_ENDPOINT,
      query: acmeQuery,
      claims: { id_token: { memberId: { essential: true }, level: { essential: true } } },
      disclose: [{ group: 'member', attributes: ['memberId', 'level'] }],
      flags: [],
    },
  },
  {
    description:
      'another ecosystem: auth URL with a trailing slash, ecosystem name with spaces, a redirect URI with its own query, a nonce of URL-special characters; `issuerID` spelling',
    input: {
      policy: {
        name: 'Health insurance check',
        version: '1.1',
        attributes: [
          {
            policyName: 'card',
            attributeNames: ['insured_person', 'policy_number', 'insurer'],
            restrictions: [{ schemaId: schemaIds.healthCard, issuerID: 'did:sov:HealthIns3Wd8rKmPq1' }],
          },
        ],
        revocationRequirement: { validNow: true },
      },
      target: {
        authUrl: 'https://login.health.example/',
        clientId: 'health-portal',
        ecosystem: 'Health Net EU',
        redirectUri: 'https://app.health.example/cb?tenant=7&lang=de',
        nonce: 'a1b2 c3/d4+e5=&',
        templates: acmeTemplates,
      },
    },
    expected: {
      endpoint: 'https://login.health.example/authorize',
      query: {
        response_type: 'code',
        scope: 'openid',
        client_id: 'health-portal',
        'service:ecosystem': 'Health Net EU',
        redirect_uri: 'https://app.health.example/cb?tenant=7&lang=de',
        nonce: 'a1b2 c3/d4+e5=&',
      },
      claims: {
        id_token: {
          insured_person: { essential: true },
          policy_number: { essential: true },
          insurer: { essential: true },
        },
      },
      disclose: [
        {
          group: 'card',
          attributes: ['insured_person', 'policy_number', 'insurer'],
          templates: ['https://schemas.example.org/templates/Health%20Insurance%20Card/3.0.1'],
        },
      ],
      flags: [
        {
          concept: 'issuer-restriction',
          group: 'card',
          note: /issued by did:sov:HealthIns3Wd8rKmPq1: .*is a member of Health Net EU/,
        },
        {
          concept: 'schema-restriction',
          group: 'card',
          note: 'restricted to schema did:sov:HealthIns3Wd8rKmPq1:2:Health Insurance Card:3.0.1 (template https://schemas.example.org/templates/Health%20Insurance%20Card/3.0.1): the authorize request cannot require a template',
        },
        { concept: 'accumulator-revocation', note: 'replaced by status lists' },
      ],
    },
  },
];
