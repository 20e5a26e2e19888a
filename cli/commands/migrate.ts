import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import { MigrationClient, MigrationError } from '../../agent-platform/client/migration-client';
import { tenantProblem } from '../../agent-platform/domain/agent-tenants';
import { migrationInputProblems } from '../../agent-platform/domain/migration/migration-input';
import { type MigrationTarget } from '../../agent-platform/domain/migration/migration-plan';
import {
  failedMigrationOutcomes,
  summariseMigration,
} from '../../agent-platform/domain/migration/migration-report';
import { type TemplateType, templateTypes } from '../../agent-platform/domain/migration/schema-template';
import { readStackInfo, type StackInfo } from '../../workers/dev/stack-file';
import { type Command, type CommandArgs, CommandFailedError, UsageError } from '../command';
import { commandConfig, connectTemporal } from '../connect';
import { printJson } from '../output';
import { stringOption } from '../parse-values';

const mappingSchema = z.record(z.string(), z.enum(templateTypes));

/** A mapping file larger than this is not a mapping file. */
const MAX_MAPPING_BYTES = 1_048_576;

/** `idv migrate`: a tenant off the earlier platform, through the `platformMigration` workflow. */
export const migrateCommand: Command = {
  name: 'migrate',
  summary:
    'Migrate a tenant off the earlier platform: a dry run by default; --apply registers redirect URIs and disables the earlier webhooks (undone if the cut-over fails)',
  usage:
    'migrate --tenant T [--apply] [--json] [--redirect-uri URL] [--auth-url URL] [--schema-base URL] [--client-id ID] [--ecosystem NAME] [--mapping FILE]',
  options: {
    tenant: { type: 'string', valueName: 'T', description: 'the tenant (required)' },
    apply: {
      type: 'boolean',
      description: 'change things: without it, a dry run that reads both platforms and writes nothing',
    },
    'redirect-uri': {
      type: 'string',
      valueName: 'URL',
      description:
        'where holders come back; {policy} becomes each policy’s name (default with `idv dev`: <receiver>/verified/<tenant>/{policy}; required otherwise)',
    },
    'auth-url': {
      type: 'string',
      valueName: 'URL',
      description:
        'the ecosystem’s OIDC provider, {auth_url} (default IDV_AUTH_URL; with `idv dev`, a local placeholder)',
    },
    'schema-base': {
      type: 'string',
      valueName: 'URL',
      description:
        'where credential templates are published, {schema_base} (default IDV_SCHEMA_BASE_URL; with `idv dev`, a local placeholder)',
    },
    'client-id': { type: 'string', valueName: 'ID', description: 'the OIDC client id (default: the tenant)' },
    ecosystem: {
      type: 'string',
      valueName: 'NAME',
      description: 'the ecosystem’s name (default: the tenant)',
    },
    mapping: {
      type: 'string',
      valueName: 'FILE',
      description:
        'a JSON file of attribute name → string | number | boolean | datetime (wins over inference)',
    },
  },
  async run({ values }, io) {
    const tenant = stringOption(values, 'tenant');
    if (!tenant) throw new UsageError('idv migrate needs --tenant T');
    const problem = tenantProblem(tenant);
    if (problem) throw new UsageError(`--tenant: ${problem}`);
    const mappingFile = stringOption(values, 'mapping');
    const mapping = mappingFile === undefined ? undefined : await readMapping(mappingFile);
    const config = commandConfig(io.env);
    // Everything is checked before connecting: a wrong option is said first.
    const target = targetOf(values, tenant, config.ecosystem, await readStackInfo(config.dataDir), mapping);
    const input = { tenant, apply: values.apply === true, target };
    const problems = migrationInputProblems(input);
    if (problems.length > 0) throw new UsageError(problems.map(optionName).join('; '));
    const connected = await connectTemporal(io.env);
    try {
      const migrations = new MigrationClient({
        client: connected.idv.client,
        taskQueue: connected.idv.taskQueue,
      });
      const report = await (async () => {
        const { handle, started } = await migrations.start(input);
        io.stderr.write(
          `${started ? 'started' : 'following the running'} migration ${handle.workflowId} (${input.apply ? 'apply' : 'dry run'})…\n`,
        );
        return await migrations.result(handle);
      })().catch((error: unknown) => {
        if (error instanceof MigrationError) throw new CommandFailedError(error.message);
        throw error;
      });
      if (values.json === true) printJson(io, report);
      else io.stdout.write(`${summariseMigration(report)}\n`);
      return failedMigrationOutcomes.includes(report.outcome) ? 1 : 0;
    } finally {
      await connected.close();
    }
  },
};

/** The target from the options, the configuration, and (with `idv dev`) local placeholders. */
function targetOf(
  values: CommandArgs['values'],
  tenant: string,
  configured: { authUrl: string | undefined; schemaBaseUrl: string | undefined },
  stack: StackInfo | undefined,
  mapping: Record<string, TemplateType> | undefined,
): MigrationTarget {
  const option = (name: string) => stringOption(values, name);
  const local = stack?.emulator?.baseUrl;
  const redirectUri =
    option('redirect-uri') ??
    (stack?.receiverUrl ? `${stack.receiverUrl}/verified/${tenant}/{policy}` : undefined);
  const authUrl = option('auth-url') ?? configured.authUrl ?? (local ? `${local}/ecosystem` : undefined);
  const schemaBaseUrl =
    option('schema-base') ?? configured.schemaBaseUrl ?? (local ? `${local}/schemas` : undefined);
  const missing = [
    redirectUri ? undefined : '--redirect-uri URL',
    authUrl ? undefined : '--auth-url URL (or IDV_AUTH_URL)',
    schemaBaseUrl ? undefined : '--schema-base URL (or IDV_SCHEMA_BASE_URL)',
  ].filter((name) => name !== undefined);
  if (missing.length > 0) throw new UsageError(`idv migrate needs ${missing.join(', ')}`);
  return {
    authUrl: authUrl ?? '',
    schemaBaseUrl: schemaBaseUrl ?? '',
    redirectUri: redirectUri ?? '',
    clientId: option('client-id') ?? tenant,
    ecosystem: option('ecosystem') ?? tenant,
    ...(mapping ? { mapping } : {}),
  };
}

/** The input's field names as the options that set them. */
function optionName(problem: string): string {
  return problem
    .replace(/^redirectUri\b/, '--redirect-uri')
    .replace(/^authUrl\b/, '--auth-url')
    .replace(/^schemaBaseUrl\b/, '--schema-base')
    .replace(/^clientId\b/, '--client-id')
    .replace(/^ecosystem\b/, '--ecosystem')
    .replace(/^mapping\b/, '--mapping');
}

async function readMapping(file: string): Promise<Record<string, TemplateType>> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new UsageError(
      `--mapping: cannot read ${file} (${(error as NodeJS.ErrnoException).code ?? 'error'})`,
    );
  }
  if (Buffer.byteLength(text) > MAX_MAPPING_BYTES)
    throw new UsageError(`--mapping: ${file} is larger than 1 MiB`);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new UsageError(`--mapping: ${file} is not JSON`);
  }
  const parsed = mappingSchema.safeParse(json);
  if (!parsed.success)
    throw new UsageError(
      `--mapping: ${file} must be an object of attribute name → ${templateTypes.join(' | ')}`,
    );
  return parsed.data;
}
