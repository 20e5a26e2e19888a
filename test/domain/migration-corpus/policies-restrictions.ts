import { ACME_ENDPOINT, acmeQuery, acmeTarget, schemaIds } from './acme';
import { type PolicyCase } from './case-types';

/** Policies that test restrictions (issuer, schema, credential definition, value) and Anoncreds predicates. */
export const restrictionPolicies: PolicyCase[] = [
  {
    description:
      'several restrictions on one group: both issuer spellings, a converted schema (→ template), an unconverted one, a credential definition; a repeated one flagged once',
    input: {
      policy: {
        name: 'Employee access',
        version: '1.0',
        attributes: [
          {
            policyName: 'badge',
            attributeNames: ['employeeId', 'givenName', 'familyName'],
            restrictions: [
              { issuerDid: 'did:sov:AcmeHR7Tqg6BwSSWapx' },
              { issuerID: 'did:sov:AcmeHRLegacy2Qd9' },
              { schemaId: schemaIds.employeeBadge },
              { schemaId: schemaIds.contractorPass },
              { credentialDefinitionId: 'did:sov:7Tqg6BwSSWapxgUDm9KKgg:3:CL:1204:badge' },
              { issuerDid: 'did:sov:AcmeHR7Tqg6BwSSWapx' },
            ],
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
          employeeId: { essential: true },
          givenName: { essential: true },
          familyName: { essential: true },
        },
      },
      disclose: [
        {
          group: 'badge',
          attributes: ['employeeId', 'givenName', 'familyName'],
          templates: ['https://schemas.example.org/templates/Employee%20Badge/2.3'],
        },
      ],
      flags: [
        {
          concept: 'issuer-restriction',
          group: 'badge',
          note: 'only credentials issued by did:sov:AcmeHR7Tqg6BwSSWapx',
        },
        {
          concept: 'issuer-restriction',
          group: 'badge',
          note: 'only credentials issued by did:sov:AcmeHRLegacy2Qd9',
        },
        {
          concept: 'schema-restriction',
          group: 'badge',
          note: 'restricted to schema did:sov:7Tqg6BwSSWapxgUDm9KKgg:2:Employee Badge:2.3 (template https://schemas.example.org/templates/Employee%20Badge/2.3): the authorize request cannot require a template',
        },
        {
          concept: 'schema-restriction',
          group: 'badge',
          note: 'restricted to schema did:sov:Partner6cN2xLw0Qe7:2:Contractor Pass:1.0, which this migration did not convert',
        },
        {
          concept: 'credential-definition',
          group: 'badge',
          note: 'restricted to credential definition did:sov:7Tqg6BwSSWapxgUDm9KKgg:3:CL:1204:badge: credential definitions do not exist',
        },
      ],
    },
  },
  {
    description:
      'one restriction naming issuer, schema (by id and by name) and credential definition: the schema id wins, each other concept flagged',
    input: {
      policy: {
        name: 'University degree check',
        version: '1.0',
        attributes: [
          {
            policyName: 'degree',
            attributeNames: ['student_name', 'degree', 'graduation_date'],
            restrictions: [
              {
                issuerDid: 'did:sov:UniRegistrar9VtHv3ZcY4',
                schemaId: schemaIds.degreeV1,
                schemaName: 'University Degree',
                schemaVersion: '1.0',
                credentialDefinitionId: 'did:sov:UniRegistrar9VtHv3ZcY4:3:CL:88:default',
              },
            ],
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
          student_name: { essential: true },
          degree: { essential: true },
          graduation_date: { essential: true },
        },
      },
      disclose: [
        {
          group: 'degree',
          attributes: ['student_name', 'degree', 'graduation_date'],
          templates: ['https://schemas.example.org/templates/University%20Degree/1.0'],
        },
      ],
      flags: [
        {
          concept: 'issuer-restriction',
          group: 'degree',
          note: 'only credentials issued by did:sov:UniRegistrar9VtHv3ZcY4',
        },
        {
          concept: 'credential-definition',
          group: 'degree',
          note: 'restricted to credential definition did:sov:UniRegistrar9VtHv3ZcY4:3:CL:88:default',
        },
        {
          concept: 'schema-restriction',
          group: 'degree',
          note: 'restricted to schema did:sov:UniRegistrar9VtHv3ZcY4:2:University Degree:1.0 (template https://schemas.example.org/templates/University%20Degree/1.0): the authorize request cannot require a template',
        },
      ],
    },
  },
  {
    description:
      'alternative schemas (either degree version) become alternative templates, each once; per group; each flagged as not required by the request',
    input: {
      policy: {
        name: 'Degree, any version',
        version: '1.0',
        attributes: [
          {
            policyName: 'degree',
            attributeNames: ['degree', 'university'],
            restrictions: [
              { schemaId: schemaIds.degreeV1 },
              { schemaId: schemaIds.degreeV2 },
              { schemaId: schemaIds.degreeV1 },
            ],
          },
          {
            policyName: 'graduate',
            attributeNames: ['student_name'],
            restrictions: [{ schemaId: schemaIds.degreeV2 }],
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
          degree: { essential: true },
          university: { essential: true },
          student_name: { essential: true },
        },
      },
      disclose: [
        {
          group: 'degree',
          attributes: ['degree', 'university'],
          templates: [
            'https://schemas.example.org/templates/University%20Degree/1.0',
            'https://schemas.example.org/templates/University%20Degree/2.0',
          ],
        },
        {
          group: 'graduate',
          attributes: ['student_name'],
          templates: ['https://schemas.example.org/templates/University%20Degree/2.0'],
        },
      ],
      flags: [
        {
          concept: 'schema-restriction',
          group: 'degree',
          note: 'restricted to schema did:sov:UniRegistrar9VtHv3ZcY4:2:University Degree:1.0 (template https://schemas.example.org/templates/University%20Degree/1.0): the authorize request cannot require a template',
        },
        {
          concept: 'schema-restriction',
          group: 'degree',
          note: 'restricted to schema did:sov:UniRegistrar9VtHv3ZcY4:2:University Degree:2.0 (template https://schemas.example.org/templates/University%20Degree/2.0): the authorize request cannot require a template',
        },
        {
          concept: 'schema-restriction',
          group: 'graduate',
          note: 'restricted to schema did:sov:UniRegistrar9VtHv3ZcY4:2:University Degree:2.0 (template https://schemas.example.org/templates/University%20Degree/2.0): the authorize request cannot require a template',
        },
      ],
    },
  },
  {
    description: 'schemas named by name and version, or by name alone, that no template came from: flagged',
    input: {
      policy: {
        name: 'Contractor check',
        version: '1.0',
        attributes: [
          {
            policyName: 'pass',
            attributeNames: ['contractor_name', 'company'],
            restrictions: [{ schemaName: 'Contractor Pass', schemaVersion: '1.0' }],
          },
          {
            policyName: 'site',
            attributeNames: ['site_code'],
            restrictions: [{ schemaName: 'Site Access' }],
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
          contractor_name: { essential: true },
          company: { essential: true },
          site_code: { essential: true },
        },
      },
      disclose: [
        { group: 'pass', attributes: ['contractor_name', 'company'] },
        { group: 'site', attributes: ['site_code'] },
      ],
      flags: [
        {
          concept: 'schema-restriction',
          group: 'pass',
          note: 'restricted to schema Contractor Pass 1.0, which this migration did not convert: name its credential template by hand',
        },
        {
          concept: 'schema-restriction',
          group: 'site',
          note: 'restricted to schema Site Access, which this migration did not convert',
        },
      ],
    },
  },
  {
    description: 'a schema named by name and version that a template came from follows that template',
    input: {
      policy: {
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
      target: acmeTarget,
    },
    expected: {
      endpoint: ACME_ENDPOINT,
      query: acmeQuery,
      claims: { id_token: { memberId: { essential: true }, level: { essential: true } } },
      disclose: [
        {
          group: 'member',
          attributes: ['memberId', 'level'],
          templates: ['https://schemas.example.org/templates/Membership/2.1'],
        },
      ],
      flags: [
        {
          concept: 'schema-restriction',
          group: 'member',
          note: 'restricted to schema Membership 2.1 (template https://schemas.example.org/templates/Membership/2.1): the authorize request cannot require a template',
        },
      ],
    },
  },
  {
    description:
      'attribute-value restrictions flagged with their attribute (the request cannot require a value), a repeated one once',
    input: {
      policy: {
        name: 'Dutch residents',
        version: '1.0',
        attributes: [
          {
            policyName: 'residence',
            attributeNames: ['street', 'city', 'postal_code'],
            restrictions: [
              { value: { attributeName: 'country', attributeValue: 'NL' } },
              { value: { attributeName: 'status', attributeValue: 'resident' } },
              { value: { attributeName: 'country', attributeValue: 'NL' } },
            ],
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
          street: { essential: true },
          city: { essential: true },
          postal_code: { essential: true },
        },
      },
      disclose: [{ group: 'residence', attributes: ['street', 'city', 'postal_code'] }],
      flags: [
        {
          concept: 'attribute-value-restriction',
          group: 'residence',
          attribute: 'country',
          note: 'required country = NL: the authorize request cannot require a value',
        },
        {
          concept: 'attribute-value-restriction',
          group: 'residence',
          attribute: 'status',
          note: 'required status = resident',
        },
      ],
    },
  },
  {
    description:
      'age over 18 as an Anoncreds predicate alone: not requested (it would disclose the birth date), flagged with its restriction, revocation and the empty request',
    input: {
      policy: {
        name: 'Age over 18',
        version: '1.0',
        attributes: [],
        predicates: [
          {
            policyName: 'adult',
            attributeName: 'birthdate_dateint',
            predicateType: '<=',
            predicateValue: 20070615,
            restrictions: [{ schemaId: schemaIds.kyc, issuerDid: 'did:sov:BankKyc5yqGQ2pZrT8Ls' }],
          },
        ],
        revocationRequirement: { validNow: true },
      },
      target: acmeTarget,
    },
    expected: {
      endpoint: ACME_ENDPOINT,
      query: acmeQuery,
      claims: { id_token: {} },
      disclose: [],
      flags: [
        {
          concept: 'anoncreds-predicate',
          group: 'adult',
          attribute: 'birthdate_dateint',
          note: /^predicate "birthdate_dateint <= 20070615" has no equivalent .*not requested/,
        },
        {
          concept: 'issuer-restriction',
          group: 'adult',
          note: 'only credentials issued by did:sov:BankKyc5yqGQ2pZrT8Ls',
        },
        {
          concept: 'schema-restriction',
          group: 'adult',
          note: 'restricted to schema did:sov:BankKyc5yqGQ2pZrT8Ls:2:KYC:2.0 (template https://schemas.example.org/templates/KYC/2.0): the authorize request cannot require a template',
        },
        { concept: 'accumulator-revocation', note: 'replaced by status lists' },
        { concept: 'nothing-to-disclose', note: 'the policy asks for no attribute to be disclosed' },
      ],
    },
  },
  {
    description:
      'predicates of every comparison (>=, <, >, <=), a zero value, one without a group: each flagged',
    input: {
      policy: {
        name: 'Loan eligibility',
        version: '2',
        attributes: [{ policyName: 'applicant', attributeNames: ['full_name', 'iban'] }],
        predicates: [
          {
            policyName: 'income',
            attributeName: 'annual_income',
            predicateType: '>=',
            predicateValue: 30000,
          },
          { policyName: 'debt', attributeName: 'debt_ratio', predicateType: '<', predicateValue: 40 },
          { policyName: 'age-min', attributeName: 'age', predicateType: '>', predicateValue: 17 },
          { policyName: 'age-max', attributeName: 'age', predicateType: '<=', predicateValue: 70 },
          { attributeName: 'credit_score', predicateType: '>=', predicateValue: 0 },
        ],
      },
      target: acmeTarget,
    },
    expected: {
      endpoint: ACME_ENDPOINT,
      query: acmeQuery,
      claims: { id_token: { full_name: { essential: true }, iban: { essential: true } } },
      disclose: [{ group: 'applicant', attributes: ['full_name', 'iban'] }],
      flags: [
        {
          concept: 'anoncreds-predicate',
          group: 'income',
          attribute: 'annual_income',
          note: 'predicate "annual_income >= 30000" has no equivalent',
        },
        {
          concept: 'anoncreds-predicate',
          group: 'debt',
          attribute: 'debt_ratio',
          note: 'predicate "debt_ratio < 40" has no equivalent',
        },
        { concept: 'anoncreds-predicate', group: 'age-min', attribute: 'age', note: 'predicate "age > 17"' },
        { concept: 'anoncreds-predicate', group: 'age-max', attribute: 'age', note: 'predicate "age <= 70"' },
        { concept: 'anoncreds-predicate', attribute: 'credit_score', note: 'predicate "credit_score >= 0"' },
      ],
    },
  },
  {
    description:
      'a predicate sharing its group and issuer restriction with disclosed attributes: the issuer flagged once',
    input: {
      policy: {
        name: 'Senior discount',
        version: '1.0',
        attributes: [
          {
            policyName: 'member',
            attributeNames: ['memberId'],
            restrictions: [{ issuerDid: 'did:web:club.example' }],
          },
        ],
        predicates: [
          {
            policyName: 'member',
            attributeName: 'age',
            predicateType: '>=',
            predicateValue: 65,
            restrictions: [{ issuerDid: 'did:web:club.example' }],
          },
        ],
      },
      target: acmeTarget,
    },
    expected: {
      endpoint: ACME_ENDPOINT,
      query: acmeQuery,
      claims: { id_token: { memberId: { essential: true } } },
      disclose: [{ group: 'member', attributes: ['memberId'] }],
      flags: [
        {
          concept: 'issuer-restriction',
          group: 'member',
          note: 'only credentials issued by did:web:club.example',
        },
        { concept: 'anoncreds-predicate', group: 'member', attribute: 'age', note: 'predicate "age >= 65"' },
      ],
    },
  },
  {
    description: 'the same issuer restricting two groups: flagged for each group',
    input: {
      policy: {
        name: 'Staff and contractors',
        version: '1.0',
        attributes: [
          {
            policyName: 'staff',
            attributeNames: ['employeeId'],
            restrictions: [{ issuerDid: 'did:sov:AcmeHR7Tqg6BwSSWapx' }],
          },
          {
            policyName: 'contractor',
            attributeNames: ['contractor_name'],
            restrictions: [
              { issuerDid: 'did:sov:AcmeHR7Tqg6BwSSWapx' },
              { schemaId: schemaIds.contractorPass },
            ],
          },
        ],
      },
      target: acmeTarget,
    },
    expected: {
      endpoint: ACME_ENDPOINT,
      query: acmeQuery,
      claims: { id_token: { employeeId: { essential: true }, contractor_name: { essential: true } } },
      disclose: [
        { group: 'staff', attributes: ['employeeId'] },
        { group: 'contractor', attributes: ['contractor_name'] },
      ],
      flags: [
        {
          concept: 'issuer-restriction',
          group: 'staff',
          note: 'only credentials issued by did:sov:AcmeHR7Tqg6BwSSWapx',
        },
        {
          concept: 'issuer-restriction',
          group: 'contractor',
          note: 'only credentials issued by did:sov:AcmeHR7Tqg6BwSSWapx',
        },
        {
          concept: 'schema-restriction',
          group: 'contractor',
          note: 'restricted to schema did:sov:Partner6cN2xLw0Qe7:2:Contractor Pass:1.0',
        },
      ],
    },
  },
  {
    description:
      'a car rental: the birth date disclosed by one group and compared by a predicate restricted to a credential definition',
    input: {
      policy: {
        name: 'Car rental',
        version: '1.3',
        attributes: [
          {
            policyName: 'driver',
            attributeNames: ['family_name', 'given_name', 'birth_date'],
            restrictions: [{ schemaName: 'Driver Licence', schemaVersion: '1.0' }],
          },
        ],
        predicates: [
          {
            policyName: 'young-driver',
            attributeName: 'birth_date',
            predicateType: '<=',
            predicateValue: 20030101,
            restrictions: [{ credentialDefinitionId: 'did:sov:DMVq7Ys2Lk9Pd3Rr:3:CL:31:licence' }],
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
          birth_date: { essential: true },
        },
      },
      disclose: [{ group: 'driver', attributes: ['family_name', 'given_name', 'birth_date'] }],
      flags: [
        {
          concept: 'schema-restriction',
          group: 'driver',
          note: 'restricted to schema Driver Licence 1.0, which this migration did not convert',
        },
        {
          concept: 'anoncreds-predicate',
          group: 'young-driver',
          attribute: 'birth_date',
          note: 'predicate "birth_date <= 20030101" has no equivalent',
        },
        {
          concept: 'credential-definition',
          group: 'young-driver',
          note: 'restricted to credential definition did:sov:DMVq7Ys2Lk9Pd3Rr:3:CL:31:licence',
        },
        { concept: 'accumulator-revocation', note: 'replaced by status lists' },
      ],
    },
  },
];
