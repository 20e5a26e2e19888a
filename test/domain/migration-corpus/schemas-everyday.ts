import { CREDENTIAL_DEFINITION_FLAG, SCHEMA_BASE } from './acme';
import { type SchemaCase } from './case-types';

/** Everyday credentials of the earlier platform, snake_case and camelCase, with and without a mapping file. */
export const everydaySchemas: SchemaCase[] = [
  {
    description:
      'a driver licence (mDL names): dates and the height typed, the document number kept a string',
    input: {
      schema: {
        name: 'Driver Licence',
        version: '1.0',
        attr_names: [
          'family_name',
          'given_name',
          'birth_date',
          'issue_date',
          'expiry_date',
          'document_number',
          'issuing_authority',
          'driving_privileges',
          'height',
          'portrait',
        ],
      },
      schemaBaseUrl: SCHEMA_BASE,
    },
    expected: {
      id: 'https://schemas.example.org/templates/Driver%20Licence/1.0',
      properties: {
        family_name: { type: 'string', description: 'family_name (from Driver Licence 1.0)' },
        given_name: { type: 'string', description: 'given_name (from Driver Licence 1.0)' },
        birth_date: { type: 'datetime', description: 'birth_date (from Driver Licence 1.0)' },
        issue_date: { type: 'datetime', description: 'issue_date (from Driver Licence 1.0)' },
        expiry_date: { type: 'datetime', description: 'expiry_date (from Driver Licence 1.0)' },
        document_number: { type: 'string', description: 'document_number (from Driver Licence 1.0)' },
        issuing_authority: { type: 'string', description: 'issuing_authority (from Driver Licence 1.0)' },
        driving_privileges: { type: 'string', description: 'driving_privileges (from Driver Licence 1.0)' },
        height: { type: 'number', description: 'height (from Driver Licence 1.0)' },
        portrait: { type: 'string', description: 'portrait (from Driver Licence 1.0)' },
      },
      flags: [
        CREDENTIAL_DEFINITION_FLAG,
        { attribute: 'birth_date', concept: 'type-inferred', note: 'typed datetime from its name' },
        { attribute: 'issue_date', concept: 'type-inferred', note: 'typed datetime from its name' },
        { attribute: 'expiry_date', concept: 'type-inferred', note: 'typed datetime from its name' },
        { attribute: 'height', concept: 'type-inferred', note: 'typed number from its name' },
      ],
    },
  },
  {
    description: 'an employee badge in camelCase: `startDate`, `badgeIssuedAt` and `isContractor` typed',
    input: {
      schema: {
        name: 'Employee Badge',
        version: '2.3',
        attr_names: [
          'employeeId',
          'givenName',
          'familyName',
          'department',
          'startDate',
          'badgeIssuedAt',
          'isContractor',
          'accessLevel',
        ],
      },
      schemaBaseUrl: SCHEMA_BASE,
    },
    expected: {
      id: 'https://schemas.example.org/templates/Employee%20Badge/2.3',
      properties: {
        employeeId: { type: 'string', description: 'employeeId (from Employee Badge 2.3)' },
        givenName: { type: 'string', description: 'givenName (from Employee Badge 2.3)' },
        familyName: { type: 'string', description: 'familyName (from Employee Badge 2.3)' },
        department: { type: 'string', description: 'department (from Employee Badge 2.3)' },
        startDate: { type: 'datetime', description: 'startDate (from Employee Badge 2.3)' },
        badgeIssuedAt: { type: 'datetime', description: 'badgeIssuedAt (from Employee Badge 2.3)' },
        isContractor: { type: 'boolean', description: 'isContractor (from Employee Badge 2.3)' },
        accessLevel: { type: 'string', description: 'accessLevel (from Employee Badge 2.3)' },
      },
      flags: [
        CREDENTIAL_DEFINITION_FLAG,
        { attribute: 'startDate', concept: 'type-inferred', note: 'typed datetime from its name' },
        { attribute: 'badgeIssuedAt', concept: 'type-inferred', note: 'typed datetime from its name' },
        { attribute: 'isContractor', concept: 'type-inferred', note: 'typed boolean from its name' },
      ],
    },
  },
  {
    description: 'a university degree: only the graduation date is typed (a `gpa` says nothing safe)',
    input: {
      schema: {
        name: 'University Degree',
        version: '1.0',
        attr_names: [
          'student_name',
          'student_id',
          'degree',
          'field_of_study',
          'graduation_date',
          'gpa',
          'honours',
          'university',
        ],
      },
      schemaBaseUrl: SCHEMA_BASE,
    },
    expected: {
      id: 'https://schemas.example.org/templates/University%20Degree/1.0',
      properties: {
        student_name: { type: 'string', description: 'student_name (from University Degree 1.0)' },
        student_id: { type: 'string', description: 'student_id (from University Degree 1.0)' },
        degree: { type: 'string', description: 'degree (from University Degree 1.0)' },
        field_of_study: { type: 'string', description: 'field_of_study (from University Degree 1.0)' },
        graduation_date: { type: 'datetime', description: 'graduation_date (from University Degree 1.0)' },
        gpa: { type: 'string', description: 'gpa (from University Degree 1.0)' },
        honours: { type: 'string', description: 'honours (from University Degree 1.0)' },
        university: { type: 'string', description: 'university (from University Degree 1.0)' },
      },
      flags: [
        CREDENTIAL_DEFINITION_FLAG,
        { attribute: 'graduation_date', concept: 'type-inferred', note: 'typed datetime from its name' },
      ],
    },
  },
  {
    description:
      'KYC with an Anoncreds `_dateint` birth date: the mapping file types it a number (over the datetime its name suggests) and `kyc_level` too',
    input: {
      schema: {
        name: 'KYC',
        version: '2.0',
        attr_names: [
          'first_name',
          'last_name',
          'birthdate_dateint',
          'nationality',
          'address',
          'kyc_level',
          'aml_score',
          'pep_status',
        ],
      },
      schemaBaseUrl: SCHEMA_BASE,
      mapping: { birthdate_dateint: 'number', kyc_level: 'number' },
    },
    expected: {
      id: 'https://schemas.example.org/templates/KYC/2.0',
      properties: {
        first_name: { type: 'string', description: 'first_name (from KYC 2.0)' },
        last_name: { type: 'string', description: 'last_name (from KYC 2.0)' },
        birthdate_dateint: { type: 'number', description: 'birthdate_dateint (from KYC 2.0)' },
        nationality: { type: 'string', description: 'nationality (from KYC 2.0)' },
        address: { type: 'string', description: 'address (from KYC 2.0)' },
        kyc_level: { type: 'number', description: 'kyc_level (from KYC 2.0)' },
        aml_score: { type: 'number', description: 'aml_score (from KYC 2.0)' },
        pep_status: { type: 'string', description: 'pep_status (from KYC 2.0)' },
      },
      flags: [
        CREDENTIAL_DEFINITION_FLAG,
        { attribute: 'aml_score', concept: 'type-inferred', note: 'typed number from its name' },
      ],
    },
  },
  {
    description:
      'proof of age: `age_over_18` would be guessed a number, the mapping file makes it a boolean; `age_in_years` is one',
    input: {
      schema: {
        name: 'Proof of Age',
        version: '1.0',
        attr_names: ['age_over_18', 'age_over_21', 'age_in_years', 'age_birth_year'],
      },
      schemaBaseUrl: SCHEMA_BASE,
      mapping: { age_over_18: 'boolean', age_over_21: 'boolean' },
    },
    expected: {
      id: 'https://schemas.example.org/templates/Proof%20of%20Age/1.0',
      properties: {
        age_over_18: { type: 'boolean', description: 'age_over_18 (from Proof of Age 1.0)' },
        age_over_21: { type: 'boolean', description: 'age_over_21 (from Proof of Age 1.0)' },
        age_in_years: { type: 'number', description: 'age_in_years (from Proof of Age 1.0)' },
        age_birth_year: { type: 'number', description: 'age_birth_year (from Proof of Age 1.0)' },
      },
      flags: [
        CREDENTIAL_DEFINITION_FLAG,
        { attribute: 'age_in_years', concept: 'type-inferred', note: 'typed number from its name' },
        { attribute: 'age_birth_year', concept: 'type-inferred', note: 'typed number from its name' },
      ],
    },
  },
  {
    description:
      'a membership: `is_active` (two boolean patterns, one type) and `points_count` typed; `validUntil` and `memberSince` not guessed',
    input: {
      schema: {
        name: 'Membership',
        version: '2.1',
        attr_names: ['memberId', 'level', 'validUntil', 'memberSince', 'is_active', 'points_count'],
      },
      schemaBaseUrl: SCHEMA_BASE,
    },
    expected: {
      id: 'https://schemas.example.org/templates/Membership/2.1',
      properties: {
        memberId: { type: 'string', description: 'memberId (from Membership 2.1)' },
        level: { type: 'string', description: 'level (from Membership 2.1)' },
        validUntil: { type: 'string', description: 'validUntil (from Membership 2.1)' },
        memberSince: { type: 'string', description: 'memberSince (from Membership 2.1)' },
        is_active: { type: 'boolean', description: 'is_active (from Membership 2.1)' },
        points_count: { type: 'number', description: 'points_count (from Membership 2.1)' },
      },
      flags: [
        CREDENTIAL_DEFINITION_FLAG,
        { attribute: 'is_active', concept: 'type-inferred', note: 'typed boolean from its name' },
        { attribute: 'points_count', concept: 'type-inferred', note: 'typed number from its name' },
      ],
    },
  },
  {
    description:
      'a health insurance card: `canton` and `insurer` stay strings; coverage dates, dental cover and premium typed',
    input: {
      schema: {
        name: 'Health Insurance Card',
        version: '3.0.1',
        attr_names: [
          'insured_person',
          'policy_number',
          'insurer',
          'canton',
          'coverage_start_date',
          'coverage_end_date',
          'has_dental_cover',
          'premium_amount',
        ],
      },
      schemaBaseUrl: SCHEMA_BASE,
    },
    expected: {
      id: 'https://schemas.example.org/templates/Health%20Insurance%20Card/3.0.1',
      properties: {
        insured_person: { type: 'string', description: 'insured_person (from Health Insurance Card 3.0.1)' },
        policy_number: { type: 'string', description: 'policy_number (from Health Insurance Card 3.0.1)' },
        insurer: { type: 'string', description: 'insurer (from Health Insurance Card 3.0.1)' },
        canton: { type: 'string', description: 'canton (from Health Insurance Card 3.0.1)' },
        coverage_start_date: {
          type: 'datetime',
          description: 'coverage_start_date (from Health Insurance Card 3.0.1)',
        },
        coverage_end_date: {
          type: 'datetime',
          description: 'coverage_end_date (from Health Insurance Card 3.0.1)',
        },
        has_dental_cover: {
          type: 'boolean',
          description: 'has_dental_cover (from Health Insurance Card 3.0.1)',
        },
        premium_amount: { type: 'number', description: 'premium_amount (from Health Insurance Card 3.0.1)' },
      },
      flags: [
        CREDENTIAL_DEFINITION_FLAG,
        { attribute: 'coverage_start_date', concept: 'type-inferred', note: 'typed datetime from its name' },
        { attribute: 'coverage_end_date', concept: 'type-inferred', note: 'typed datetime from its name' },
        { attribute: 'has_dental_cover', concept: 'type-inferred', note: 'typed boolean from its name' },
        { attribute: 'premium_amount', concept: 'type-inferred', note: 'typed number from its name' },
      ],
    },
  },
  {
    description: 'a nursing licence: registration date and `can_prescribe` typed',
    input: {
      schema: {
        name: 'Nursing Licence',
        version: '1.2',
        attr_names: ['licensee_name', 'licence_number', 'registration_date', 'specialty', 'can_prescribe'],
      },
      schemaBaseUrl: SCHEMA_BASE,
    },
    expected: {
      id: 'https://schemas.example.org/templates/Nursing%20Licence/1.2',
      properties: {
        licensee_name: { type: 'string', description: 'licensee_name (from Nursing Licence 1.2)' },
        licence_number: { type: 'string', description: 'licence_number (from Nursing Licence 1.2)' },
        registration_date: { type: 'datetime', description: 'registration_date (from Nursing Licence 1.2)' },
        specialty: { type: 'string', description: 'specialty (from Nursing Licence 1.2)' },
        can_prescribe: { type: 'boolean', description: 'can_prescribe (from Nursing Licence 1.2)' },
      },
      flags: [
        CREDENTIAL_DEFINITION_FLAG,
        { attribute: 'registration_date', concept: 'type-inferred', note: 'typed datetime from its name' },
        { attribute: 'can_prescribe', concept: 'type-inferred', note: 'typed boolean from its name' },
      ],
    },
  },
  {
    description: 'a bank account proof: `_at` suffix a datetime, `_amount` a number, `is_` prefix a boolean',
    input: {
      schema: {
        name: 'Bank Account Proof',
        version: '1.0',
        attr_names: [
          'iban',
          'bic',
          'account_holder',
          'account_opened_at',
          'overdraft_amount',
          'is_joint_account',
        ],
      },
      schemaBaseUrl: SCHEMA_BASE,
    },
    expected: {
      id: 'https://schemas.example.org/templates/Bank%20Account%20Proof/1.0',
      properties: {
        iban: { type: 'string', description: 'iban (from Bank Account Proof 1.0)' },
        bic: { type: 'string', description: 'bic (from Bank Account Proof 1.0)' },
        account_holder: { type: 'string', description: 'account_holder (from Bank Account Proof 1.0)' },
        account_opened_at: {
          type: 'datetime',
          description: 'account_opened_at (from Bank Account Proof 1.0)',
        },
        overdraft_amount: { type: 'number', description: 'overdraft_amount (from Bank Account Proof 1.0)' },
        is_joint_account: { type: 'boolean', description: 'is_joint_account (from Bank Account Proof 1.0)' },
      },
      flags: [
        CREDENTIAL_DEFINITION_FLAG,
        { attribute: 'account_opened_at', concept: 'type-inferred', note: 'typed datetime from its name' },
        { attribute: 'overdraft_amount', concept: 'type-inferred', note: 'typed number from its name' },
        { attribute: 'is_joint_account', concept: 'type-inferred', note: 'typed boolean from its name' },
      ],
    },
  },
  {
    description: 'a course certificate: score, counts and `number_of_` numbers, `completed_at` a datetime',
    input: {
      schema: {
        name: 'Course Certificate',
        version: '1.0',
        attr_names: [
          'course_code',
          'ects_credits',
          'final_score',
          'attempt_count',
          'number_of_modules',
          'completed_at',
          'passed',
        ],
      },
      schemaBaseUrl: SCHEMA_BASE,
    },
    expected: {
      id: 'https://schemas.example.org/templates/Course%20Certificate/1.0',
      properties: {
        course_code: { type: 'string', description: 'course_code (from Course Certificate 1.0)' },
        ects_credits: { type: 'string', description: 'ects_credits (from Course Certificate 1.0)' },
        final_score: { type: 'number', description: 'final_score (from Course Certificate 1.0)' },
        attempt_count: { type: 'number', description: 'attempt_count (from Course Certificate 1.0)' },
        number_of_modules: { type: 'number', description: 'number_of_modules (from Course Certificate 1.0)' },
        completed_at: { type: 'datetime', description: 'completed_at (from Course Certificate 1.0)' },
        passed: { type: 'string', description: 'passed (from Course Certificate 1.0)' },
      },
      flags: [
        CREDENTIAL_DEFINITION_FLAG,
        { attribute: 'final_score', concept: 'type-inferred', note: 'typed number from its name' },
        { attribute: 'attempt_count', concept: 'type-inferred', note: 'typed number from its name' },
        { attribute: 'number_of_modules', concept: 'type-inferred', note: 'typed number from its name' },
        { attribute: 'completed_at', concept: 'type-inferred', note: 'typed datetime from its name' },
      ],
    },
  },
  {
    description: 'a pet passport: weight a number, vaccination date and `_expires` datetimes',
    input: {
      schema: {
        name: 'Pet Passport',
        version: '1.0',
        attr_names: [
          'microchip_id',
          'species',
          'weight',
          'vaccination_date',
          'rabies_vaccine_expires',
          'owner_name',
        ],
      },
      schemaBaseUrl: SCHEMA_BASE,
    },
    expected: {
      id: 'https://schemas.example.org/templates/Pet%20Passport/1.0',
      properties: {
        microchip_id: { type: 'string', description: 'microchip_id (from Pet Passport 1.0)' },
        species: { type: 'string', description: 'species (from Pet Passport 1.0)' },
        weight: { type: 'number', description: 'weight (from Pet Passport 1.0)' },
        vaccination_date: { type: 'datetime', description: 'vaccination_date (from Pet Passport 1.0)' },
        rabies_vaccine_expires: {
          type: 'datetime',
          description: 'rabies_vaccine_expires (from Pet Passport 1.0)',
        },
        owner_name: { type: 'string', description: 'owner_name (from Pet Passport 1.0)' },
      },
      flags: [
        CREDENTIAL_DEFINITION_FLAG,
        { attribute: 'weight', concept: 'type-inferred', note: 'typed number from its name' },
        { attribute: 'vaccination_date', concept: 'type-inferred', note: 'typed datetime from its name' },
        {
          attribute: 'rabies_vaccine_expires',
          concept: 'type-inferred',
          note: 'typed datetime from its name',
        },
      ],
    },
  },
  {
    description:
      'a schema without attributes: an empty template, still flagged for its credential definition',
    input: { schema: { name: 'Placeholder', version: '0.1', attr_names: [] }, schemaBaseUrl: SCHEMA_BASE },
    expected: {
      id: 'https://schemas.example.org/templates/Placeholder/0.1',
      properties: {},
      flags: [CREDENTIAL_DEFINITION_FLAG],
    },
  },
];
