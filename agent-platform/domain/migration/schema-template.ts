/** Attribute types of a credential template that a name can safely suggest (the rest are strings). */
export const templateTypes = ['string', 'number', 'boolean', 'datetime'] as const;
/** One of {@link templateTypes}. */
export type TemplateType = (typeof templateTypes)[number];

/** A schema of the earlier platform: a flat list of attribute names. */
export interface EarlierSchema {
  name: string;
  version: string;
  attr_names: string[];
}

/** A credential template of the current platform: a JSON schema at a URL, typed attributes. */
export interface CredentialTemplate {
  id: string;
  properties: Record<string, { type: TemplateType; description: string }>;
}

/** Something the conversion could not carry over as it was: never dropped silently. */
export interface ConversionFlag {
  /** The attribute concerned, when one is. */
  attribute?: string;
  concept: 'credential-definition' | 'odd-attribute-name' | 'duplicate-attribute' | 'type-inferred';
  note: string;
}

/** A converted schema and what was flagged. */
export interface SchemaConversion {
  template: CredentialTemplate;
  flags: ConversionFlag[];
}

/** Options of {@link convertSchema}. */
export interface ConvertSchemaOptions {
  /** Where templates are published (`{schema_base}`); the template id is `<base>/<name>/<version>`. */
  schemaBaseUrl: string;
  /** Types by attribute name (a mapping file): they win over inference. */
  mapping?: Readonly<Record<string, TemplateType>>;
}

// Name patterns that say the type without doubt; anything else stays a string. Words between
// underscores in any case; camelCase words case-sensitively (`issueDate`, `isActive`), or
// `issuer`, `canton`, `format` and `update` would read as booleans and dates.
const inferred: ReadonlyArray<[TemplateType, RegExp]> = [
  ['datetime', /(^|_)(date|dob|birthdate|date_of_birth|expiry|expires|issued)($|_)|_at$/i],
  ['datetime', /[a-z0-9](Date|At)$/],
  ['boolean', /^(is|has|can)_|(^|_)(verified|active|enabled|consent)$/i],
  ['boolean', /^([iI]s|[hH]as|[cC]an)[A-Z]/],
  ['number', /(^|_)(age|count|amount|score|height|weight|quantity|number_of)($|_)/i],
];

/** The one type a name suggests; none when it suggests none or several (`has_expiry`). */
function inferredType(attribute: string): TemplateType | undefined {
  const types = new Set(inferred.filter(([, pattern]) => pattern.test(attribute)).map(([type]) => type));
  return types.size === 1 ? [...types][0] : undefined;
}

const PLAIN_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * Converts an earlier schema `{name, version, attr_names}` into a credential template: one typed
 * property per attribute (from the mapping, else inferred from the name where safe, else
 * `string`), odd names kept and reported, and the credential definition the earlier platform
 * wrote to a ledger flagged (templates are URLs; there is none).
 */
export function convertSchema(schema: EarlierSchema, options: ConvertSchemaOptions): SchemaConversion {
  const base = options.schemaBaseUrl.replace(/\/+$/, '');
  const flags: ConversionFlag[] = [
    {
      concept: 'credential-definition',
      note: 'the earlier credential definition has no equivalent: the template is published at its URL',
    },
  ];
  // No prototype: `__proto__` is kept as an attribute, `constructor` is not found as one.
  const properties = Object.create(null) as CredentialTemplate['properties'];
  for (const attribute of schema.attr_names) {
    if (Object.hasOwn(properties, attribute)) {
      flags.push({ attribute, concept: 'duplicate-attribute', note: 'listed twice; kept once' });
      continue;
    }
    if (!PLAIN_NAME.test(attribute))
      flags.push({
        attribute,
        concept: 'odd-attribute-name',
        note: 'kept as written: check the holders’ wallets accept it',
      });
    const mapped =
      options.mapping && Object.hasOwn(options.mapping, attribute) ? options.mapping[attribute] : undefined;
    const guessed = inferredType(attribute);
    const type = mapped ?? guessed ?? 'string';
    if (!mapped && guessed)
      flags.push({
        attribute,
        concept: 'type-inferred',
        note: `typed ${guessed} from its name: confirm or map it`,
      });
    properties[attribute] = { type, description: `${attribute} (from ${schema.name} ${schema.version})` };
  }
  return {
    template: {
      id: `${base}/${encodeURIComponent(schema.name)}/${encodeURIComponent(schema.version)}`,
      properties,
    },
    flags,
  };
}
