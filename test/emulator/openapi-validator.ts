import Ajv, { type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { loadAgentSwagger, loadIdentityOpenApi } from './reference';

// Validates emulator answers against the official documents, never against our own zod schemas,
// so the emulator and the client cannot drift apart together unnoticed.

type Json = Record<string, unknown>;

/** OpenAPI 3.0 `nullable: true` is not JSON Schema: rewrite it as `anyOf [schema, null]`. */
function convertNullable(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(convertNullable);
  if (typeof node !== 'object' || node === null) return node;
  const converted: Json = {};
  for (const [key, value] of Object.entries(node)) converted[key] = convertNullable(value);
  if (converted.nullable === true) {
    delete converted.nullable;
    return { anyOf: [converted, { type: 'null' }] };
  }
  delete converted.nullable;
  return converted;
}

function newAjv(): Ajv {
  const ajv = new Ajv({ strict: false, allErrors: true, validateFormats: true });
  addFormats(ajv);
  ajv.addFormat('int32', {
    type: 'number',
    validate: (n: number) => Number.isInteger(n) && Math.abs(n) <= 2 ** 31,
  });
  ajv.addFormat('int64', { type: 'number', validate: (n: number) => Number.isInteger(n) });
  ajv.addFormat('double', { type: 'number', validate: () => true });
  ajv.addFormat('float', { type: 'number', validate: () => true });
  ajv.addFormat('byte', /^[A-Za-z0-9+/]*={0,2}$/);
  return ajv;
}

/** A response as received. */
export interface WireResponse {
  status: number;
  contentType: string | undefined;
  body: unknown;
}

/** Validator of the identity service's responses against its OpenAPI document. */
export class IdentityContract {
  readonly #doc: Json;
  readonly #ajv = newAjv();
  readonly #cache = new Map<string, ValidateFunction>();

  constructor() {
    this.#doc = convertNullable(loadIdentityOpenApi()) as Json;
    this.#ajv.addSchema({ components: this.#doc.components }, 'openapi');
  }

  /**
   * Errors of a response of `method pathTemplate`, empty when it conforms. A status the document
   * does not list for the operation must still be problem details.
   */
  check(method: string, pathTemplate: string, response: WireResponse): string[] {
    const paths = this.#doc.paths as Record<string, Record<string, Json>>;
    const operation = paths[pathTemplate]?.[method.toLowerCase()];
    if (!operation) return [`the document has no operation ${method} ${pathTemplate}`];
    const responses = operation.responses as Record<string, Json>;
    const documented = responses[String(response.status)];
    const mediaType = (response.contentType ?? '').split(';')[0]?.trim() ?? '';
    if (!documented) {
      if (response.status < 400)
        return [`status ${response.status} is not documented for ${method} ${pathTemplate}`];
      if (mediaType !== 'application/problem+json')
        return [`undocumented error status ${response.status} is not problem details`];
      return this.#validate('#/components/schemas/ProblemDetails', response.body);
    }
    const content = documented.content as Record<string, { schema?: Json }> | undefined;
    if (!content) return response.body === undefined ? [] : [`${response.status} must have no body`];
    const media = content[mediaType];
    if (!media?.schema)
      return [
        `content type ${mediaType || '(none)'} is not documented for ${response.status} (${Object.keys(content).join(', ')})`,
      ];
    const ref = media.schema.$ref;
    return typeof ref === 'string' ? this.#validate(ref, response.body) : [];
  }

  #validate(ref: string, body: unknown): string[] {
    let validate = this.#cache.get(ref);
    if (!validate) {
      validate = this.#ajv.compile({ $ref: `openapi${ref}` });
      this.#cache.set(ref, validate);
    }
    if (validate(body)) return [];
    return (validate.errors ?? []).map((e) => `${e.instancePath || '(body)'} ${e.message ?? ''}`);
  }
}

/** Validator of the earlier platform's responses against its Swagger 2.0 document. */
export class AgentContract {
  readonly #doc: Json;
  readonly #ajv = newAjv();

  constructor() {
    this.#doc = loadAgentSwagger();
    this.#ajv.addSchema({ definitions: this.#doc.definitions }, 'swagger');
  }

  /** Errors of a 200 response of `method pathTemplate` (template relative to the base path). */
  check(method: string, pathTemplate: string, body: unknown): string[] {
    const paths = this.#doc.paths as Record<string, Record<string, Json>>;
    const responses = paths[pathTemplate]?.[method.toLowerCase()]?.responses as
      Record<string, { schema?: Json }> | undefined;
    if (!responses) return [`the document has no operation ${method} ${pathTemplate}`];
    const schema = responses['200']?.schema;
    if (!schema) return body === undefined ? [] : ['a body was sent where the document shows none'];
    const rewritten = JSON.parse(
      JSON.stringify(schema).replaceAll('"#/definitions/', '"swagger#/definitions/'),
    ) as Json;
    const validate = this.#ajv.compile(rewritten);
    if (validate(body)) return [];
    return (validate.errors ?? []).map((e) => `${e.instancePath || '(body)'} ${e.message ?? ''}`);
  }
}
