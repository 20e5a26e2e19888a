import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';

/** The service's own interface documents, beside the project in shared/reference. */
const referenceDir =
  process.env.IDV_REFERENCE_DIR ?? join(__dirname, '..', '..', '..', 'shared', 'reference');

function read(name: string): string {
  const file = join(referenceDir, name);
  if (!existsSync(file))
    throw new Error(`${file} is missing: set IDV_REFERENCE_DIR to the folder of the interface documents`);
  return readFileSync(file, 'utf8');
}

/** The official OpenAPI document of the identity service, parsed. */
export function loadIdentityOpenApi(): Record<string, unknown> {
  return parse(read('identity-service-v3.1.openapi.yaml')) as Record<string, unknown>;
}

/** The earlier platform's Swagger 2.0 document, parsed. */
export function loadAgentSwagger(): Record<string, unknown> {
  return JSON.parse(read('earlier-platform-credentials.swagger.json')) as Record<string, unknown>;
}
