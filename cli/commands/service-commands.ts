import { ApiError } from '../../api/http/errors';
import { paginateRedirectUris } from '../../api/identity/pagination';
import { type Command, type CommandArgs, CommandFailedError, type CommandIo, UsageError } from '../command';
import { type FailedWork, listFailedWork } from '../../agent-platform/client/failed-work';
import { isUuid } from '../../stores/session-vault';
import { connectIdentity, connectTemporal } from '../connect';
import { printJson, tableLines } from '../output';
import { parseNonNegative, stringOption } from '../parse-values';

async function withIdentity<T>(
  io: CommandIo,
  body: (identity: Awaited<ReturnType<typeof connectIdentity>>['identity']) => Promise<T>,
): Promise<T> {
  const { identity } = await connectIdentity(io.env);
  try {
    return await body(identity);
  } catch (error) {
    if (error instanceof ApiError) throw new CommandFailedError(error.message);
    throw error;
  } finally {
    await identity.close();
  }
}

/** `idv providers`. */
export const providersCommand: Command = {
  name: 'providers',
  summary: 'List the identity providers available to the organization',
  usage: 'providers [--licensed] [--json]',
  options: { licensed: { type: 'boolean', description: 'only licensed providers' } },
  async run({ values }, io) {
    return await withIdentity(io, async (identity) => {
      const providers = await identity.providers.list(values.licensed === true ? { licensed: true } : {});
      if (values.json === true) printJson(io, providers);
      else {
        const rows = providers.map((p) => [
          p.id,
          p.licensed ? 'licensed' : 'unlicensed',
          `${p.launchMethod}/${p.collectionMethod}`,
          p.name,
        ]);
        io.stdout.write(
          `${tableLines(['PROVIDER', 'LICENCE', 'LAUNCH/COLLECTION', 'NAME'], rows).join('\n')}\n`,
        );
      }
      return 0;
    });
  },
};

/** `idv redirect-uris list|add|delete`. */
export const redirectUrisCommand: Command = {
  name: 'redirect-uris',
  takesArguments: true,
  summary: 'List, add or delete the redirect URIs of the environment',
  usage: 'redirect-uris list | add <uri> | delete <id> [--json]',
  options: {},
  async run({ positionals, values }, io) {
    const [action, argument, ...extra] = positionals;
    if (extra.length > 0) throw new UsageError(`unexpected argument '${extra[0]}'`);
    if (action !== 'list' && action !== 'add' && action !== 'delete') {
      throw new UsageError('idv redirect-uris needs list, add <uri> or delete <id>');
    }
    if (action !== 'list' && !argument)
      throw new UsageError(`idv redirect-uris ${action} needs ${action === 'add' ? '<uri>' : '<id>'}`);
    return await withIdentity(io, async (identity) => {
      if (action === 'list') {
        const uris = [];
        for await (const uri of paginateRedirectUris(identity.redirectUris, { pageSize: 100 }))
          uris.push(uri);
        if (values.json === true) printJson(io, uris);
        else if (uris.length === 0) io.stdout.write('no redirect URIs\n');
        else
          io.stdout.write(
            `${tableLines(
              ['ID', 'URI'],
              uris.map((uri) => [uri.id, uri.uri]),
            ).join('\n')}\n`,
          );
      } else if (action === 'add') {
        const id = await identity.redirectUris.add(argument ?? '');
        if (values.json === true) printJson(io, { id, uri: argument });
        else io.stdout.write(`${id}\n`);
      } else {
        await identity.redirectUris.delete(argument ?? '');
        if (values.json === true) printJson(io, { deleted: argument });
      }
      return 0;
    });
  },
};

/** `idv list`. */
export const listCommand: Command = {
  name: 'list',
  summary:
    'List verifications by status, provider or profile (running ones first, then ended ones; newest first in each)',
  usage: 'list [--status S] [--provider P] [--profile ID] [--failed] [--limit N] [--json]',
  options: {
    failed: {
      type: 'boolean',
      description:
        'instead: the workflows that failed or gave up a step (redactions, sweeps, onboardings, migrations, registries), with why and what to do next',
    },
    status: {
      type: 'string',
      valueName: 'S',
      description: 'starting, pending, succeeded, failed, cancelled or timed-out',
    },
    provider: { type: 'string', valueName: 'P', description: 'provider id' },
    profile: { type: 'string', valueName: 'ID', description: 'verification profile id' },
    limit: { type: 'string', valueName: 'N', description: 'at most this many (default 50)' },
  },
  async run({ values }, io) {
    const statuses = ['starting', 'pending', 'succeeded', 'failed', 'cancelled', 'timed-out'] as const;
    const status = stringOption(values, 'status');
    if (status !== undefined && !statuses.includes(status as (typeof statuses)[number])) {
      throw new UsageError(`--status must be one of ${statuses.join(', ')}, got '${status}'`);
    }
    const limit = parseNonNegative(stringOption(values, 'limit'), 'limit', { integer: true }) ?? 50;
    if (limit === 0) throw new UsageError("--limit must be at least 1, got '0'");
    if (values.failed === true) {
      const filter = ['status', 'provider', 'profile'].find((name) => values[name] !== undefined);
      if (filter) throw new UsageError(`--failed lists every kind of workflow: it takes no --${filter}`);
    }
    const connected = await connectTemporal(io.env);
    try {
      if (values.failed === true)
        return printFailedWork(
          io,
          await listFailedWork(connected.idv.client, { taskQueue: connected.idv.taskQueue, limit }),
          values,
        );
      const found = await connected.idv.listVerifications({
        ...(status ? { status: status as (typeof statuses)[number] } : {}),
        ...(stringOption(values, 'provider') ? { provider: stringOption(values, 'provider') } : {}),
        ...(stringOption(values, 'profile')
          ? { verificationProfileId: stringOption(values, 'profile') }
          : {}),
        limit,
      });
      if (values.json === true) printJson(io, found);
      else if (found.length === 0) io.stdout.write('no verifications found\n');
      else {
        const rows = found.map((v) => [
          v.reference,
          String(v.status ?? '-'),
          v.sessionId ?? '-',
          v.startedAt,
        ]);
        io.stdout.write(`${tableLines(['REFERENCE', 'STATUS', 'SESSION', 'STARTED'], rows).join('\n')}\n`);
      }
      return 0;
    } finally {
      await connected.close();
    }
  },
};

/** Prints what `idv list --failed` found: one block per workflow, or JSON. */
function printFailedWork(io: CommandIo, found: FailedWork[], values: CommandArgs['values']): number {
  if (values.json === true) printJson(io, found);
  else if (found.length === 0) io.stdout.write('nothing failed or gave up\n');
  else
    for (const work of found)
      io.stdout.write(
        `${work.workflowId} (${work.type}, ${work.state} since ${work.at})\n  why:  ${work.reason}\n  next: ${work.next}\n`,
      );
  return 0;
}

/** `idv sweep <profile>`. */
export const sweepCommand: Command = {
  name: 'sweep',
  takesArguments: true,
  summary: "Start a verification profile's orphan sweep, or make the running one look now",
  usage: 'sweep <profile-id> [--json]',
  options: {},
  async run({ positionals, values }, io) {
    const [profileId, ...extra] = positionals;
    if (extra.length > 0) throw new UsageError(`unexpected argument '${extra[0]}'`);
    if (!profileId || !isUuid(profileId))
      throw new UsageError('idv sweep needs a verification profile id (a uuid)');
    const connected = await connectTemporal(io.env);
    try {
      const workflowId = await connected.idv.sweepOrphans(profileId);
      if (values.json === true) printJson(io, { workflowId });
      else io.stdout.write(`${workflowId}: looking for orphans\n`);
      return 0;
    } finally {
      await connected.close();
    }
  },
};
