import { CREDENTIAL_DEFINITION_FLAG, SCHEMA_BASE } from './acme';
import { type SchemaCase } from './case-types';

/**
 * Schemas whose attribute names test the converter: odd names kept and reported, duplicates,
 * names the type patterns must not read (false positives), names that suggest two types, the
 * mapping file, and the false positives the patterns still make (flagged for a person to confirm).
 */
export const nameSchemas: SchemaCase[] = [
  {
    description:
      'odd names (space, dot, dash, leading digit, non-ASCII, blank, empty) kept as written and each reported',
    input: {
      schema: {
        name: 'Legacy Import',
        version: '0.9',
        attr_names: ['e-mail address', 'home.city', 'first-name', '2fa_enabled', 'Straße', '名前', ' ', ''],
      },
      schemaBaseUrl: SCHEMA_BASE,
    },
    expected: {
      id: 'https://schemas.example.org/templates/Legacy%20Import/0.9',
      properties: {
        'e-mail address': { type: 'string', description: 'e-mail address (from Legacy Import 0.9)' },
        'home.city': { type: 'string', description: 'home.city (from Legacy Import 0.9)' },
        'first-name': { type: 'string', description: 'first-name (from Legacy Import 0.9)' },
        '2fa_enabled': { type: 'boolean', description: '2fa_enabled (from Legacy Import 0.9)' },
        Straße: { type: 'string', description: 'Straße (from Legacy Import 0.9)' },
        名前: { type: 'string', description: '名前 (from Legacy Import 0.9)' },
        ' ': { type: 'string', description: '  (from Legacy Import 0.9)' },
        '': { type: 'string', description: ' (from Legacy Import 0.9)' },
      },
      flags: [
        CREDENTIAL_DEFINITION_FLAG,
        { attribute: 'e-mail address', concept: 'odd-attribute-name', note: 'kept as written' },
        { attribute: 'home.city', concept: 'odd-attribute-name', note: 'kept as written' },
        { attribute: 'first-name', concept: 'odd-attribute-name', note: 'kept as written' },
        { attribute: '2fa_enabled', concept: 'odd-attribute-name', note: 'kept as written' },
        { attribute: '2fa_enabled', concept: 'type-inferred', note: 'typed boolean from its name' },
        { attribute: 'Straße', concept: 'odd-attribute-name', note: 'kept as written' },
        { attribute: '名前', concept: 'odd-attribute-name', note: 'kept as written' },
        { attribute: ' ', concept: 'odd-attribute-name', note: 'kept as written' },
        { attribute: '', concept: 'odd-attribute-name', note: 'kept as written' },
      ],
    },
  },
  {
    description:
      'duplicates kept once, each repetition reported; an odd duplicate reported odd once and duplicate once',
    input: {
      schema: {
        name: 'Library Card',
        version: '1',
        attr_names: [
          'card_number',
          'holder_name',
          'card_number',
          'expires',
          'e-mail',
          'holder_name',
          'expires',
          'e-mail',
        ],
      },
      schemaBaseUrl: SCHEMA_BASE,
    },
    expected: {
      id: 'https://schemas.example.org/templates/Library%20Card/1',
      properties: {
        card_number: { type: 'string', description: 'card_number (from Library Card 1)' },
        holder_name: { type: 'string', description: 'holder_name (from Library Card 1)' },
        expires: { type: 'datetime', description: 'expires (from Library Card 1)' },
        'e-mail': { type: 'string', description: 'e-mail (from Library Card 1)' },
      },
      flags: [
        CREDENTIAL_DEFINITION_FLAG,
        { attribute: 'card_number', concept: 'duplicate-attribute', note: 'listed twice; kept once' },
        { attribute: 'expires', concept: 'type-inferred', note: 'typed datetime from its name' },
        { attribute: 'e-mail', concept: 'odd-attribute-name', note: 'kept as written' },
        { attribute: 'holder_name', concept: 'duplicate-attribute', note: 'listed twice; kept once' },
        { attribute: 'expires', concept: 'duplicate-attribute', note: 'listed twice; kept once' },
        { attribute: 'e-mail', concept: 'duplicate-attribute', note: 'listed twice; kept once' },
      ],
    },
  },
  {
    description:
      'words that merely begin with is / has / can (`isbn`, `issuer`, `hash`, `island_…`, `cancellation_…`) are not booleans',
    input: {
      schema: {
        name: 'Book Registration',
        version: '1.0',
        attr_names: ['isbn', 'title', 'issuer', 'hash', 'island_of_publication', 'cancellation_policy'],
      },
      schemaBaseUrl: SCHEMA_BASE,
    },
    expected: {
      id: 'https://schemas.example.org/templates/Book%20Registration/1.0',
      properties: {
        isbn: { type: 'string', description: 'isbn (from Book Registration 1.0)' },
        title: { type: 'string', description: 'title (from Book Registration 1.0)' },
        issuer: { type: 'string', description: 'issuer (from Book Registration 1.0)' },
        hash: { type: 'string', description: 'hash (from Book Registration 1.0)' },
        island_of_publication: {
          type: 'string',
          description: 'island_of_publication (from Book Registration 1.0)',
        },
        cancellation_policy: {
          type: 'string',
          description: 'cancellation_policy (from Book Registration 1.0)',
        },
      },
      flags: [CREDENTIAL_DEFINITION_FLAG],
    },
  },
  {
    description:
      'words that merely end in "at" or "date" (`seat`, `format`, `last_update`) are not datetimes; `event_date` and `doorsOpenAt` are',
    input: {
      schema: {
        name: 'Event Ticket',
        version: '1.0',
        attr_names: ['seat', 'row', 'format', 'venue', 'last_update', 'event_date', 'doorsOpenAt'],
      },
      schemaBaseUrl: SCHEMA_BASE,
    },
    expected: {
      id: 'https://schemas.example.org/templates/Event%20Ticket/1.0',
      properties: {
        seat: { type: 'string', description: 'seat (from Event Ticket 1.0)' },
        row: { type: 'string', description: 'row (from Event Ticket 1.0)' },
        format: { type: 'string', description: 'format (from Event Ticket 1.0)' },
        venue: { type: 'string', description: 'venue (from Event Ticket 1.0)' },
        last_update: { type: 'string', description: 'last_update (from Event Ticket 1.0)' },
        event_date: { type: 'datetime', description: 'event_date (from Event Ticket 1.0)' },
        doorsOpenAt: { type: 'datetime', description: 'doorsOpenAt (from Event Ticket 1.0)' },
      },
      flags: [
        CREDENTIAL_DEFINITION_FLAG,
        { attribute: 'event_date', concept: 'type-inferred', note: 'typed datetime from its name' },
        { attribute: 'doorsOpenAt', concept: 'type-inferred', note: 'typed datetime from its name' },
      ],
    },
  },
  {
    description:
      'names that suggest two types (`has_expiry`, `is_issued`, `birthdate_verified`, `age_verified`) are not guessed',
    input: {
      schema: {
        name: 'Passport Check',
        version: '1.0',
        attr_names: [
          'has_expiry',
          'is_issued',
          'birthdate_verified',
          'age_verified',
          'email_verified',
          'date_of_expiry',
        ],
      },
      schemaBaseUrl: SCHEMA_BASE,
    },
    expected: {
      id: 'https://schemas.example.org/templates/Passport%20Check/1.0',
      properties: {
        has_expiry: { type: 'string', description: 'has_expiry (from Passport Check 1.0)' },
        is_issued: { type: 'string', description: 'is_issued (from Passport Check 1.0)' },
        birthdate_verified: { type: 'string', description: 'birthdate_verified (from Passport Check 1.0)' },
        age_verified: { type: 'string', description: 'age_verified (from Passport Check 1.0)' },
        email_verified: { type: 'boolean', description: 'email_verified (from Passport Check 1.0)' },
        date_of_expiry: { type: 'datetime', description: 'date_of_expiry (from Passport Check 1.0)' },
      },
      flags: [
        CREDENTIAL_DEFINITION_FLAG,
        { attribute: 'email_verified', concept: 'type-inferred', note: 'typed boolean from its name' },
        { attribute: 'date_of_expiry', concept: 'type-inferred', note: 'typed datetime from its name' },
      ],
    },
  },
  {
    description:
      'names of Object.prototype (`constructor`, `toString`, `__proto__`) are attributes like any other, with a mapping file given',
    input: {
      schema: {
        name: 'Vehicle Registration',
        version: '1.0',
        attr_names: [
          'constructor',
          'model',
          'registration_number',
          'first_registration_date',
          '__proto__',
          'toString',
        ],
      },
      schemaBaseUrl: SCHEMA_BASE,
      mapping: { first_registration_date: 'datetime' },
    },
    expected: {
      id: 'https://schemas.example.org/templates/Vehicle%20Registration/1.0',
      properties: {
        // `as const`: TypeScript types a `constructor` or `toString` key from Object's, not the record's.
        constructor: { type: 'string' as const, description: 'constructor (from Vehicle Registration 1.0)' },
        model: { type: 'string', description: 'model (from Vehicle Registration 1.0)' },
        registration_number: {
          type: 'string',
          description: 'registration_number (from Vehicle Registration 1.0)',
        },
        first_registration_date: {
          type: 'datetime',
          description: 'first_registration_date (from Vehicle Registration 1.0)',
        },
        // Computed: a literal `__proto__:` key would set the prototype instead.
        ['__proto__']: { type: 'string', description: '__proto__ (from Vehicle Registration 1.0)' },
        toString: { type: 'string' as const, description: 'toString (from Vehicle Registration 1.0)' },
      },
      flags: [CREDENTIAL_DEFINITION_FLAG],
    },
  },
  {
    description:
      'the mapping file wins over inference (a count kept a string), types what names do not say, and its other entries are ignored',
    input: {
      schema: {
        name: 'Loyalty Account',
        version: '4',
        attr_names: ['account_id', 'points_count', 'member_since', 'tier', 'consent'],
      },
      schemaBaseUrl: SCHEMA_BASE,
      mapping: {
        points_count: 'string',
        member_since: 'datetime',
        tier: 'number',
        unrelated_field: 'boolean',
      },
    },
    expected: {
      id: 'https://schemas.example.org/templates/Loyalty%20Account/4',
      properties: {
        account_id: { type: 'string', description: 'account_id (from Loyalty Account 4)' },
        points_count: { type: 'string', description: 'points_count (from Loyalty Account 4)' },
        member_since: { type: 'datetime', description: 'member_since (from Loyalty Account 4)' },
        tier: { type: 'number', description: 'tier (from Loyalty Account 4)' },
        consent: { type: 'boolean', description: 'consent (from Loyalty Account 4)' },
      },
      flags: [
        CREDENTIAL_DEFINITION_FLAG,
        { attribute: 'consent', concept: 'type-inferred', note: 'typed boolean from its name' },
      ],
    },
  },
  {
    description:
      'false positives the patterns still make (`issued_by` a datetime, `amount_currency` a number): flagged type-inferred, to confirm or map',
    input: {
      schema: {
        name: 'Invoice Credential',
        version: '1.0',
        attr_names: ['invoice_number', 'issued_by', 'amount', 'amount_currency', 'due_date', 'line_count'],
      },
      schemaBaseUrl: SCHEMA_BASE,
    },
    expected: {
      id: 'https://schemas.example.org/templates/Invoice%20Credential/1.0',
      properties: {
        invoice_number: { type: 'string', description: 'invoice_number (from Invoice Credential 1.0)' },
        issued_by: { type: 'datetime', description: 'issued_by (from Invoice Credential 1.0)' },
        amount: { type: 'number', description: 'amount (from Invoice Credential 1.0)' },
        amount_currency: { type: 'number', description: 'amount_currency (from Invoice Credential 1.0)' },
        due_date: { type: 'datetime', description: 'due_date (from Invoice Credential 1.0)' },
        line_count: { type: 'number', description: 'line_count (from Invoice Credential 1.0)' },
      },
      flags: [
        CREDENTIAL_DEFINITION_FLAG,
        {
          attribute: 'issued_by',
          concept: 'type-inferred',
          note: /typed datetime from its name: confirm or map/,
        },
        { attribute: 'amount', concept: 'type-inferred', note: 'typed number from its name' },
        {
          attribute: 'amount_currency',
          concept: 'type-inferred',
          note: /typed number from its name: confirm or map/,
        },
        { attribute: 'due_date', concept: 'type-inferred', note: 'typed datetime from its name' },
        { attribute: 'line_count', concept: 'type-inferred', note: 'typed number from its name' },
      ],
    },
  },
  {
    description:
      'upper-case and PascalCase names: `DOB`, `HOUSEHOLD_COUNT`, `IsHomeowner`, `CREATED_AT` typed; `VAT_NUMBER` not',
    input: {
      schema: {
        name: 'Census Response',
        version: '2024',
        attr_names: ['PERSON_ID', 'DOB', 'HOUSEHOLD_COUNT', 'IsHomeowner', 'CREATED_AT', 'VAT_NUMBER'],
      },
      schemaBaseUrl: SCHEMA_BASE,
    },
    expected: {
      id: 'https://schemas.example.org/templates/Census%20Response/2024',
      properties: {
        PERSON_ID: { type: 'string', description: 'PERSON_ID (from Census Response 2024)' },
        DOB: { type: 'datetime', description: 'DOB (from Census Response 2024)' },
        HOUSEHOLD_COUNT: { type: 'number', description: 'HOUSEHOLD_COUNT (from Census Response 2024)' },
        IsHomeowner: { type: 'boolean', description: 'IsHomeowner (from Census Response 2024)' },
        CREATED_AT: { type: 'datetime', description: 'CREATED_AT (from Census Response 2024)' },
        VAT_NUMBER: { type: 'string', description: 'VAT_NUMBER (from Census Response 2024)' },
      },
      flags: [
        CREDENTIAL_DEFINITION_FLAG,
        { attribute: 'DOB', concept: 'type-inferred', note: 'typed datetime from its name' },
        { attribute: 'HOUSEHOLD_COUNT', concept: 'type-inferred', note: 'typed number from its name' },
        { attribute: 'IsHomeowner', concept: 'type-inferred', note: 'typed boolean from its name' },
        { attribute: 'CREATED_AT', concept: 'type-inferred', note: 'typed datetime from its name' },
      ],
    },
  },
  {
    description:
      'a French identity card: name percent-encoded in the id (base URL slashes trimmed), `prénom` odd, `date_de_naissance` typed',
    input: {
      schema: {
        name: "Carte d'identité",
        version: '2',
        attr_names: ['nom', 'prénom', 'date_de_naissance', 'lieu_de_naissance', 'taille'],
      },
      schemaBaseUrl: 'https://schemas.example.org/eu/templates//',
    },
    expected: {
      id: "https://schemas.example.org/eu/templates/Carte%20d'identit%C3%A9/2",
      properties: {
        nom: { type: 'string', description: "nom (from Carte d'identité 2)" },
        prénom: { type: 'string', description: "prénom (from Carte d'identité 2)" },
        date_de_naissance: { type: 'datetime', description: "date_de_naissance (from Carte d'identité 2)" },
        lieu_de_naissance: { type: 'string', description: "lieu_de_naissance (from Carte d'identité 2)" },
        taille: { type: 'string', description: "taille (from Carte d'identité 2)" },
      },
      flags: [
        CREDENTIAL_DEFINITION_FLAG,
        { attribute: 'prénom', concept: 'odd-attribute-name', note: 'kept as written' },
        { attribute: 'date_de_naissance', concept: 'type-inferred', note: 'typed datetime from its name' },
      ],
    },
  },
  {
    description:
      'a slash in the name and a space in the version are encoded, not taken as path segments; Spanish names not guessed',
    input: {
      schema: {
        name: 'Tarjeta Sanitaria/ES',
        version: '1.0 beta',
        attr_names: ['numero_afiliado', 'nombre', 'fecha_nacimiento', 'comunidad_autonoma'],
      },
      schemaBaseUrl: SCHEMA_BASE,
    },
    expected: {
      id: 'https://schemas.example.org/templates/Tarjeta%20Sanitaria%2FES/1.0%20beta',
      properties: {
        numero_afiliado: {
          type: 'string',
          description: 'numero_afiliado (from Tarjeta Sanitaria/ES 1.0 beta)',
        },
        nombre: { type: 'string', description: 'nombre (from Tarjeta Sanitaria/ES 1.0 beta)' },
        fecha_nacimiento: {
          type: 'string',
          description: 'fecha_nacimiento (from Tarjeta Sanitaria/ES 1.0 beta)',
        },
        comunidad_autonoma: {
          type: 'string',
          description: 'comunidad_autonoma (from Tarjeta Sanitaria/ES 1.0 beta)',
        },
      },
      flags: [CREDENTIAL_DEFINITION_FLAG],
    },
  },
  {
    description:
      '"date" inside a word (`datestamp_id`, `mandate`, `candidate`, `dateline`, `update`) and `heartbeat` are not datetimes',
    input: {
      schema: {
        name: 'Audit Record',
        version: '1',
        attr_names: ['datestamp_id', 'mandate', 'candidate', 'heartbeat', 'dateline', 'update'],
      },
      schemaBaseUrl: SCHEMA_BASE,
    },
    expected: {
      id: 'https://schemas.example.org/templates/Audit%20Record/1',
      properties: {
        datestamp_id: { type: 'string', description: 'datestamp_id (from Audit Record 1)' },
        mandate: { type: 'string', description: 'mandate (from Audit Record 1)' },
        candidate: { type: 'string', description: 'candidate (from Audit Record 1)' },
        heartbeat: { type: 'string', description: 'heartbeat (from Audit Record 1)' },
        dateline: { type: 'string', description: 'dateline (from Audit Record 1)' },
        update: { type: 'string', description: 'update (from Audit Record 1)' },
      },
      flags: [CREDENTIAL_DEFINITION_FLAG],
    },
  },
];
