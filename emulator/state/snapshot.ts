import { readFile } from 'node:fs/promises';
import { writeFileAtomic } from '../../stores/local/atomic-file';
import { type AgentDefinitions } from './agent-definitions';
import {
  type ProfileRecord,
  type RedirectUriRecord,
  type SessionRecord,
  type SessionScript,
  type WebhookRecord,
} from './model';
import { type EmulatorStore } from './store';

/**
 * What an emulator keeps across restarts (`idv dev`): every record, but no secret of its own:
 * API keys are made anew at each start (sessions belong to environments, not keys) and a
 * redacted session's results access key is dropped, so the data dir holds neither once the
 * person's data is due to be gone.
 */
export interface EmulatorSnapshot {
  version: 2;
  clockOffsetMs: number;
  script: SessionScript;
  profiles: ProfileRecord[];
  sessions: Array<
    Omit<SessionRecord, 'attachments'> & {
      attachments: Array<{ id: string; type: string; contentType: string; base64: string }>;
    }
  >;
  redirectUris: Array<[string, RedirectUriRecord[]]>;
  webhooks: WebhookRecord[];
  agentDefinitions: Array<[string, AgentDefinitions]>;
}

/** The store as a snapshot. */
export function snapshotOf(store: EmulatorStore): EmulatorSnapshot {
  return {
    version: 2,
    clockOffsetMs: store.clock.offsetMs(),
    script: store.script,
    profiles: [...store.profiles.values()],
    sessions: [...store.sessions.values()].map((session) => ({
      ...session,
      resultsAccessKey: session.redacted ? '' : session.resultsAccessKey,
      attachments: [...session.attachments.values()].map(({ bytes, ...attachment }) => ({
        ...attachment,
        base64: bytes.toString('base64'),
      })),
    })),
    redirectUris: [...store.redirectUris],
    webhooks: [...store.webhooks.values()],
    agentDefinitions: [...store.agentDefinitions],
  };
}

/** Puts a snapshot's records into a store made with the snapshot's keys. */
export function restoreSnapshot(store: EmulatorStore, snapshot: EmulatorSnapshot): void {
  store.clock.advance(snapshot.clockOffsetMs);
  store.script = snapshot.script;
  for (const profile of snapshot.profiles) store.profiles.set(profile.id, profile);
  for (const session of snapshot.sessions) {
    const attachments = new Map(
      session.attachments.map(({ base64, ...attachment }) => [
        attachment.id,
        { ...attachment, bytes: Buffer.from(base64, 'base64') },
      ]),
    );
    store.sessions.set(session.id, { ...session, attachments });
  }
  for (const [environmentId, uris] of snapshot.redirectUris) store.redirectUris.set(environmentId, uris);
  for (const webhook of snapshot.webhooks) store.webhooks.set(webhook.id, webhook);
  for (const [tenant, definitions] of snapshot.agentDefinitions)
    store.agentDefinitions.set(tenant, definitions);
}

/** The snapshot in `file`, or undefined when there is none (a first start). */
export async function readSnapshot(file: string): Promise<EmulatorSnapshot | undefined> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  const snapshot = JSON.parse(text) as EmulatorSnapshot;
  if (snapshot.version !== 2) throw new Error(`${file}: not an emulator state of this version`);
  return snapshot;
}

/** Writes the snapshot (temporary file, fsync, rename), readable by its owner only. */
export async function writeSnapshot(file: string, snapshot: EmulatorSnapshot): Promise<void> {
  await writeFileAtomic(file, JSON.stringify(snapshot));
}
