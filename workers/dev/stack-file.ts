import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { writeFileAtomic } from '../../stores/local/atomic-file';

/** What `idv dev` publishes in the data dir so other `idv` commands find the running stack. */
export const stackInfoSchema = z.object({
  pid: z.number().int(),
  temporalAddress: z.string(),
  namespace: z.string(),
  temporalUiUrl: z.string().optional(),
  /** The codec server of the web UI and `temporal --codec-endpoint` (its token is in the data dir). */
  codecEndpoint: z.string().optional(),
  taskQueue: z.string(),
  /** The receiver of agent deliveries and redirect returns (its secret is in the data dir). */
  receiverUrl: z.string().optional(),
  emulator: z
    .object({
      baseUrl: z.string(),
      agentBaseUrl: z.string(),
      controlUrl: z.string(),
      apiKey: z.string(),
      verificationProfileId: z.string(),
      agentKeys: z.record(z.string(), z.string()),
    })
    .optional(),
});

/** Addresses of a running embedded stack. */
export type StackInfo = z.infer<typeof stackInfoSchema>;

const fileName = 'stack.json';

/** Writes the stack file into the data dir, readable by its owner only (it holds the emulator's keys). */
export async function writeStackInfo(dataDir: string, info: StackInfo): Promise<void> {
  await writeFileAtomic(join(dataDir, fileName), `${JSON.stringify(info, null, 2)}\n`);
}

/** Reads the stack file; undefined when no stack has been started or the file is damaged. */
export async function readStackInfo(dataDir: string): Promise<StackInfo | undefined> {
  try {
    const parsed = stackInfoSchema.safeParse(JSON.parse(await readFile(join(dataDir, fileName), 'utf8')));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/** Removes the stack file when the stack stops. */
export async function removeStackInfo(dataDir: string): Promise<void> {
  await rm(join(dataDir, fileName), { force: true });
}

/** The stack file of a data dir, split by whether its `idv dev` process still runs. */
export interface StackState {
  /** The stack, its process running. */
  live: StackInfo | undefined;
  /** A stack file whose process has gone (stopped without cleaning up, or killed). */
  stale: StackInfo | undefined;
}

/** Reads the stack file and tells a running stack from a stale file (its pid gone). */
export async function readStackState(dataDir: string): Promise<StackState> {
  const info = await readStackInfo(dataDir);
  if (!info) return { live: undefined, stale: undefined };
  return processRuns(info.pid) ? { live: info, stale: undefined } : { live: undefined, stale: info };
}

/** Why there is no stack to use in `dataDir`, naming a stale file's address. */
export function noStackReason(dataDir: string, state: StackState): string {
  return state.stale
    ? `the stack in ${dataDir} is not running (its stack.json names Temporal at ${state.stale.temporalAddress}, but idv dev pid ${state.stale.pid} has stopped)`
    : `no running stack in ${dataDir}`;
}

function processRuns(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it runs, as another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
