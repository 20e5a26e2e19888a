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

/** What an emulator keeps across restarts (`idv dev`): its keys and every record. */
export interface EmulatorSnapshot {
  version: 1;
  apiKeys: string[];
  agentKeys: Record<string, string>;
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
export function snapshotOf(
  store: EmulatorStore,
  keys: { apiKeys: string[]; agentKeys: Record<string, string> },
): EmulatorSnapshot {
  return {
    version: 1,
    ...keys,
    clockOffsetMs: store.clock.offsetMs(),
    script: store.script,
    profiles: [...store.profiles.values()],
    sessions: [...store.sessions.values()].map((session) => ({
      ...session,
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
  if (snapshot.version !== 1) throw new Error(`${file}: not an emulator state of this version`);
  return snapshot;
}

/** Writes the snapshot (temporary file, fsync, rename), readable by its owner only. */
export async function writeSnapshot(file: string, snapshot: EmulatorSnapshot): Promise<void> {
  await writeFileAtomic(file, JSON.stringify(snapshot));
}
