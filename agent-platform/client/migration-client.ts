import { createHash } from 'node:crypto';
import {
  type Client,
  WorkflowFailedError,
  type WorkflowHandle,
  WorkflowNotFoundError,
} from '@temporalio/client';
import {
  migrationInputProblems,
  migrationWorkflowId,
  type PlatformMigrationInput,
} from '../domain/migration/migration-input';
import { type MigrationReport } from '../domain/migration/migration-report';
import { type MigrationProgress, migrationProgressQuery } from '../shared/migration-messages';
import { innermostMessage } from '../../common/failure-message';
import { agentPlatformWorkflowTypes, type PlatformMigrationWorkflow } from '../shared/workflows';
import { migrationMetadata } from '../shared/metadata';

/** The memo fields holding a migration's mode and a digest of its whole input. */
const MODE_MEMO = 'idvMigrationMode';
const INPUT_MEMO = 'idvMigrationInput';

/** A digest of the input, the same whatever order its keys were written in. */
function inputDigest(input: PlatformMigrationInput): string {
  const { target } = input;
  const canonical = {
    tenant: input.tenant,
    apply: input.apply === true,
    target: {
      authUrl: target.authUrl,
      schemaBaseUrl: target.schemaBaseUrl,
      clientId: target.clientId,
      ecosystem: target.ecosystem,
      redirectUri: target.redirectUri,
      mapping: Object.entries(target.mapping ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
    },
  };
  return createHash('sha256').update(JSON.stringify(canonical)).digest('hex');
}

/** Thrown for an invalid migration, one of another mode already running, or a migration that failed; the message says why. */
export class MigrationError extends Error {
  override readonly name = 'MigrationError';
}

/** Options of {@link MigrationClient}. */
export interface MigrationClientOptions {
  /** A Temporal client with the workers' data converter. */
  client: Client;
  /** @default 'identity-verification' */
  taskQueue?: string;
}

/** A started (or joined) migration. */
export interface MigrationRun {
  handle: WorkflowHandle<PlatformMigrationWorkflow>;
  /** False when a migration of the tenant was running already and this one joined it. */
  started: boolean;
}

/**
 * Migrations of tenants off the earlier platform (`idv-migration-<tenant>`, one at a time per
 * tenant). Starting while one with the same input runs joins it (a command that lost its
 * terminal follows the same run); one of another mode or other settings is refused.
 */
export class MigrationClient {
  readonly #client: Client;
  readonly #taskQueue: string;

  constructor(options: MigrationClientOptions) {
    this.#client = options.client;
    this.#taskQueue = options.taskQueue ?? 'identity-verification';
  }

  /** Starts a migration (a dry run unless `apply`), or joins the one of the same mode running. */
  async start(input: PlatformMigrationInput): Promise<MigrationRun> {
    const problems = migrationInputProblems(input);
    if (problems.length > 0) throw new MigrationError(problems.join('; '));
    const mode = input.apply === true ? 'apply' : 'dry-run';
    const workflowId = migrationWorkflowId(input.tenant);
    const runningBefore = await this.#runningRunId(workflowId);
    const handle = await this.#client.workflow.start<PlatformMigrationWorkflow>(
      agentPlatformWorkflowTypes.migration,
      {
        workflowId,
        taskQueue: this.#taskQueue,
        args: [input],
        ...migrationMetadata(input.tenant, mode === 'apply'),
        // Read from the memo, so the check needs no worker.
        memo: { [MODE_MEMO]: mode, [INPUT_MEMO]: inputDigest(input) },
        workflowIdConflictPolicy: 'USE_EXISTING',
        workflowIdReusePolicy: 'ALLOW_DUPLICATE',
      },
    );
    const description = await handle.describe();
    const running = description.memo?.[MODE_MEMO];
    if (running !== mode)
      throw new MigrationError(
        `a migration of ${input.tenant} in ${String(running)} mode is running (${workflowId}): wait for it to end`,
      );
    if (description.memo?.[INPUT_MEMO] !== inputDigest(input))
      throw new MigrationError(
        `a migration of ${input.tenant} with other settings is running (${workflowId}): wait for it to end`,
      );
    return { handle, started: runningBefore !== description.runId };
  }

  /** Starts (or joins) a migration and waits for its report. */
  async run(input: PlatformMigrationInput): Promise<MigrationReport> {
    const { handle } = await this.start(input);
    return await this.result(handle);
  }

  /** The report of a started migration; a migration that failed outright throws {@link MigrationError}. */
  async result(handle: WorkflowHandle<PlatformMigrationWorkflow>): Promise<MigrationReport> {
    try {
      return await handle.result();
    } catch (error) {
      if (error instanceof WorkflowFailedError)
        throw new MigrationError(innermostMessage(error), { cause: error });
      throw error;
    }
  }

  /** Where the tenant's running migration is. */
  async progress(tenant: string): Promise<MigrationProgress> {
    try {
      return await this.#client.workflow.getHandle(migrationWorkflowId(tenant)).query(migrationProgressQuery);
    } catch (error) {
      if (error instanceof WorkflowNotFoundError)
        throw new MigrationError(`no migration of ${tenant} has run`, { cause: error });
      throw error;
    }
  }

  async #runningRunId(workflowId: string): Promise<string | undefined> {
    try {
      const description = await this.#client.workflow.getHandle(workflowId).describe();
      return description.status.name === 'RUNNING' ? description.runId : undefined;
    } catch (error) {
      if (error instanceof WorkflowNotFoundError) return undefined;
      throw error;
    }
  }
}
