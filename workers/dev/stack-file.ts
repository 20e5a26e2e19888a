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
