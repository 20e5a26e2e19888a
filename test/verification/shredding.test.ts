import { cp, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Client, WorkflowNotFoundError } from '@temporalio/client';
import { Client as PgClient } from 'pg';
import { DataKeys, DataKeyUnavailableError, unwrapKey } from '../../codec/data-keys';
import { type KeyEncryptionKey } from '../../codec/keyring';
import { type Sealed, attachmentAad } from '../../codec/sealed';
import { type IdvStore } from '../../stores/idv-store';
import { keptAccessKey } from '../../verification/activities/access-keys';
import { openLocalStore } from '../../stores/local/local-store';
import { openPostgresStore } from '../../stores/postgres/postgres-store';
import { keyringQuery, keyringWorkflowId } from '../../keyring/shared';
import { harnessEncryptionKeys } from '../harness/env';
import { eventually } from '../harness/eventually';
import { FixedKeyring } from '../harness/fixed-keyring';
import { sealedInHistory } from '../harness/history-payloads';
import { createTestDatabase, type PostgresServer, startPostgresServer } from '../harness/postgres';
import { readAll } from '../harness/streams';
import { useVerificationStack, type VerificationStack } from '../harness/verification-stack';

// A wrapped data key as the store keeps it: `<key-encryption key id>:<base64>`.
const WRAPPED = /kek-\d+-[0-9a-f]{8}:[A-Za-z0-9+/]{40,}={0,2}/g;

/** What a read of a file or folder that went meanwhile (a live server renames and removes its own) answers. */
function unlessGone<T>(value: T): (error: NodeJS.ErrnoException) => T {
  return (error) => {
    if (error.code === 'ENOENT') return value;
    throw error;
  };
}

/** The files of a tree and their bytes; one gone while the tree is read held nothing. */
async function* filesOf(root: string): AsyncGenerator<{ name: string; bytes: Buffer }> {
  for (const entry of await readdir(root, { withFileTypes: true }).catch(unlessGone([]))) {
    const path = join(root, entry.name);
    if (entry.isDirectory()) yield* filesOf(path);
    else if (entry.isFile()) {
      const bytes = await readFile(path).catch(unlessGone(undefined));
      if (bytes) yield { name: entry.name, bytes };
    }
  }
}

/** Every wrapped data key anywhere in a file tree's bytes (table files, WAL, dumps, key files). */
async function wrappedIn(root: string): Promise<string[]> {
  const found = new Set<string>();
  for await (const { bytes } of filesOf(root))
    for (const match of bytes.toString('latin1').matchAll(WRAPPED)) found.add(match[0]);
  return [...found];
}

/** The files of a tree whose bytes hold `text` (table files, WAL, dumps, key files). */
async function filesHolding(root: string, text: string): Promise<string[]> {
  const holding: string[] = [];
  for await (const { name, bytes } of filesOf(root)) if (bytes.includes(text)) holding.push(name);
  return holding;
}

/**
 * A file-level copy of a live tree, as a backup takes one: a file the server renames or removes
 * under the copy (a WAL segment written under a temporary name) makes it start again, a few times.
 */
async function copyLive(from: string, to: string, filter?: (path: string) => boolean): Promise<void> {
  for (let tries = 1; ; tries += 1) {
    try {
      return await cp(from, to, { recursive: true, ...(filter ? { filter } : {}) });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT' || tries === 5) throw error;
      await rm(to, { recursive: true, force: true });
    }
  }
}

/** Every key a deployment holds: its payload keys and its keyring's keys now. */
async function keysHeld(client: Client, taskQueue: string): Promise<KeyEncryptionKey[]> {
  const view = await client.workflow.getHandle(keyringWorkflowId(taskQueue)).query(keyringQuery);
  return [
    ...view.keys.map((entry) => ({ id: entry.id, key: Buffer.from(entry.key, 'base64') })),
    ...harnessEncryptionKeys().map((entry) => ({ id: entry.id, key: entry.key })),
  ];
}

/** A keyring holding the given keys, for the project's own code paths over a copy of the store. */
function keyringOf(keys: readonly KeyEncryptionKey[]): FixedKeyring {
  const keyring = new FixedKeyring();
  for (const key of keys) keyring.add(key);
  return keyring;
}

/** What a verification left sealed: its history's values, its data key, a stored attachment. */
interface Sealing {
  reference: string;
  sessionId: string;
  dataKeyId: string;
  attachmentId: string;
  history: Sealed[];
  /** The session's results access key at the service: it reads the results while they are kept there. */
  resultsAccessKey: string;
}

/** A verification with identity data and an attachment, still holding them (redacted on request only). */
async function sealedVerification(stack: VerificationStack): Promise<Sealing> {
  const request = stack.request({ results: 'data+attachments', redactAfter: 'never' });
  const { handle, nextStep } = await stack.idv.startVerification(request);
  const outcome = await handle.result({ confirmDelivery: false });
  expect(outcome.identity?.person).toMatchObject({ familyName: 'Lovelace' });
  const { dataKeyId } = await handle.progress();
  const history = await sealedInHistory(stack.client, handle.workflowId, harnessEncryptionKeys());
  // The start input's providerInput and the outcome's identity at least.
  expect(history.length).toBeGreaterThanOrEqual(2);
  return {
    reference: request.reference,
    sessionId: nextStep.sessionId,
    dataKeyId: dataKeyId ?? '',
    attachmentId: outcome.attachments?.[0]?.id ?? '',
    history,
    resultsAccessKey: stack.emulator.store.sessions.get(nextStep.sessionId)?.resultsAccessKey ?? '',
  };
}

/** Redacts, then has the keyring rotate past the destruction; resolves once its earlier runs are gone. */
async function redactAndRotate(stack: VerificationStack, sealing: Sealing): Promise<void> {
  const keyringHandle = stack.client.workflow.getHandle(keyringWorkflowId(stack.taskQueue));
  const { runId: before } = await keyringHandle.describe();
  await stack.idv.redactVerification(sealing.reference);
  // Only a rotation that started after the erasure counts: one under way may have re-wrapped the
  // key before its destruction, under the key-encryption key it keeps.
  const { requestedAt } = await stack.idv.rotateKeys();
  await eventually(async () => {
    const status = await stack.idv.keyringStatus();
    const last = status.lastRotation;
    return last?.completedAt !== undefined &&
      Date.parse(last.startedAt) >= Date.parse(requestedAt) &&
      status.earlierRunsDeleted === true
      ? status
      : undefined;
  }, 'a rotation started after the redaction, and its earlier runs deleted');
  // The run that held the retired keys is gone from Temporal too.
  await eventually(
    () =>
      stack.client.workflow
        .getHandle(keyringWorkflowId(stack.taskQueue), before)
        .describe()
        .then(
          () => undefined,
          (error: unknown) => (error instanceof WorkflowNotFoundError ? true : undefined),
        ),
    "the keyring's earlier run deleted",
    // The server deletes a run once its queues have recorded the run's close task done (every
    // second in the tests' server, global-setup), a few seconds after it is asked to.
    150_000,
  );
}

/**
 * Nothing opens the person's data: neither the project's code over `copy` with every key the
 * deployment holds, nor any wrapped form of the data key found in `bytes` under any such key.
 */
async function expectNothingOpens(options: {
  stack: VerificationStack;
  sealing: Sealing;
  copy: IdvStore;
  wrapped: string[];
}): Promise<void> {
  const { stack, sealing, copy, wrapped } = options;
  const keys = await keysHeld(stack.client, stack.taskQueue);
  const dataKeys = new DataKeys(copy.dataKeys, keyringOf(keys));
  for (const value of sealing.history)
    await expect(dataKeys.open(value)).rejects.toBeInstanceOf(DataKeyUnavailableError);
  const blob = await copy.blobs.read(sealing.sessionId, sealing.attachmentId);
  expect(blob).toBeDefined();
  await expect(
    dataKeys.openStream(
      sealing.dataKeyId,
      attachmentAad(sealing.sessionId, sealing.attachmentId),
      blob as AsyncIterable<Buffer>,
    ),
  ).rejects.toBeInstanceOf(DataKeyUnavailableError);
  await expect(keptAccessKey({ vault: copy.vault, dataKeys }, sealing.sessionId)).rejects.toBeInstanceOf(
    DataKeyUnavailableError,
  );
  for (const candidate of wrapped)
    for (const key of keys) expect(unwrapKey(key, sealing.dataKeyId, candidate)).toBeUndefined();
}

/** Before the rotation, the same copies open the data: what the test looks at can fail it. */
async function expectCopiesOpenBeforeRotation(options: {
  stack: VerificationStack;
  sealing: Sealing;
  copy: IdvStore;
  wrapped: string[];
}): Promise<void> {
  const { stack, sealing, copy, wrapped } = options;
  const keys = await keysHeld(stack.client, stack.taskQueue);
  const dataKeys = new DataKeys(copy.dataKeys, keyringOf(keys));
  await expect(dataKeys.open(sealing.history[0] as Sealed)).resolves.toBeDefined();
  const blob = (await copy.blobs.read(sealing.sessionId, sealing.attachmentId)) as AsyncIterable<Buffer>;
  const opened = await dataKeys.openStream(
    sealing.dataKeyId,
    attachmentAad(sealing.sessionId, sealing.attachmentId),
    blob,
  );
  expect(((await readAll(opened)) as Buffer).length).toBeGreaterThan(0);
  await expect(keptAccessKey({ vault: copy.vault, dataKeys }, sealing.sessionId)).resolves.toBe(
    sealing.resultsAccessKey,
  );
  const opening = wrapped.filter((candidate) =>
    keys.some((key) => unwrapKey(key, sealing.dataKeyId, candidate) !== undefined),
  );
  expect(opening.length).toBeGreaterThan(0);
}

describe('shredding in PostgreSQL: a dump, the WAL and the live database open nothing once rotated past', () => {
  let directory: string;
  let cluster: string;
  let server: PostgresServer;
  let storeUrl: string;
  beforeAll(async () => {
    directory = await mkdtemp(join(tmpdir(), 'idv-shredding-pg-'));
    // A folder of its own: the server may run as another user, who owns it.
    cluster = await mkdtemp(join(tmpdir(), 'idv-shredding-cluster-'));
    server = await startPostgresServer(cluster);
    storeUrl = (await createTestDatabase(server.url)).url;
  }, 60_000);
  const stack = useVerificationStack({}, { store: () => openPostgresStore(storeUrl) });
  afterAll(async () => {
    await server?.stop();
    await rm(directory, { recursive: true, force: true });
    await rm(cluster, { recursive: true, force: true });
  });

  /** A logical dump of every table of the store: its rows as JSON, bytes in base64. */
  async function dump(url: string): Promise<Record<string, Array<Record<string, unknown>>>> {
    const client = new PgClient({ connectionString: url });
    await client.connect();
    try {
      const { rows: tables } = await client.query<{ tablename: string }>(
        `SELECT tablename FROM pg_tables WHERE tablename LIKE 'idv\\_%'`,
      );
      const tablesDump: Record<string, Array<Record<string, unknown>>> = {};
      for (const { tablename } of tables)
        tablesDump[tablename] = (await client.query(`SELECT * FROM "${tablename}"`)).rows;
      return tablesDump;
    } finally {
      await client.end();
    }
  }

  /** The dump restored into a new database, opened as a store by the project's own code. */
  async function restore(tables: Record<string, Array<Record<string, unknown>>>): Promise<IdvStore> {
    const database = await createTestDatabase(server.url);
    const restored = await openPostgresStore(database.url);
    const client = new PgClient({ connectionString: database.url });
    await client.connect();
    try {
      await client.query('TRUNCATE idv_schema, idv_schema_applied');
      for (const [table, rows] of Object.entries(tables))
        for (const row of rows) {
          const columns = Object.keys(row);
          await client.query(
            `INSERT INTO "${table}" (${columns.map((column) => `"${column}"`).join(', ')})
             VALUES (${columns.map((_, i) => `$${i + 1}`).join(', ')})`,
            columns.map((column) => row[column]),
          );
        }
    } finally {
      await client.end();
    }
    return restored;
  }

  it('leaves no copy that opens the identity, the attachment or the history after redaction and rotation', async () => {
    const sealing = await sealedVerification(stack());
    // Backups taken while the data is sealed: a logical dump, and the cluster's files with its WAL.
    const dumped = await dump(storeUrl);
    await mkdir(join(directory, 'dump'));
    await writeFile(join(directory, 'dump', 'dump.json'), JSON.stringify(dumped));
    // As a file-level backup copies it: the data files and the WAL (sockets are not files).
    await copyLive(cluster, join(directory, 'file-copy'), (path) => !path.includes('.s.PGSQL.'));
    // The results access key is in no copy as it is: one that outlives the redaction would read
    // the results at the service for as long as it keeps them.
    expect(sealing.resultsAccessKey).not.toBe('');
    for (const root of [join(directory, 'dump'), join(directory, 'file-copy'), cluster])
      expect(await filesHolding(root, sealing.resultsAccessKey)).toEqual([]);
    const fromDump = await restore(dumped);
    await expectCopiesOpenBeforeRotation({
      stack: stack(),
      sealing,
      copy: fromDump,
      wrapped: [
        ...(await wrappedIn(join(directory, 'dump'))),
        ...(await wrappedIn(join(directory, 'file-copy'))),
      ],
    });

    await redactAndRotate(stack(), sealing);

    // The dump, the file copy taken before, and the live cluster's files and WAL now.
    const wrapped = [
      ...(await wrappedIn(join(directory, 'dump'))),
      ...(await wrappedIn(join(directory, 'file-copy'))),
      ...(await wrappedIn(cluster)),
    ];
    expect(wrapped.length).toBeGreaterThan(0);
    await expectNothingOpens({ stack: stack(), sealing, copy: fromDump, wrapped });
    await fromDump.close();
  }, 300_000);
});

describe('shredding in the directory store: a copy of the directory taken before opens nothing once rotated past', () => {
  const stack = useVerificationStack();

  it('leaves no copy that opens the identity, the attachment or the history after redaction and rotation', async () => {
    const sealing = await sealedVerification(stack());
    const copyDir = await mkdtemp(join(tmpdir(), 'idv-shredding-copy-'));
    try {
      await copyLive(stack().dataDir, copyDir);
      expect(sealing.resultsAccessKey).not.toBe('');
      expect(await filesHolding(copyDir, sealing.resultsAccessKey)).toEqual([]);
      const copy = await openLocalStore(copyDir);
      await expectCopiesOpenBeforeRotation({
        stack: stack(),
        sealing,
        copy,
        wrapped: await wrappedIn(copyDir),
      });

      await redactAndRotate(stack(), sealing);

      const wrapped = [...(await wrappedIn(copyDir)), ...(await wrappedIn(stack().dataDir))];
      await expectNothingOpens({ stack: stack(), sealing, copy, wrapped });
    } finally {
      await rm(copyDir, { recursive: true, force: true });
    }
  }, 300_000);
});
