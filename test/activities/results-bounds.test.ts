import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApplicationFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import { createActivities } from '../../workers/activities';
import { MISSING_IDENTITY_WAIT_MS, type ResultLimits } from '../../verification/activities/result-limits';
import { createIdentityClient, type IdentityClient } from '../../api/identity/identity-client';
import { type Emulator, startEmulator } from '../../emulator/emulator';
import { type SessionRecord } from '../../emulator/state/model';
import { LocalBlobStore } from '../../stores/local/local-blob-store';
import { FileSessionVault } from '../../stores/local/file-session-vault';
import { FileDataKeyStore } from '../../stores/local/file-data-keys';
import { DataKeys } from '../../codec/data-keys';
import { type Sealed } from '../../codec/sealed';
import { type FetchedResults } from '../../verification/activities/result-activities';
import { FixedKeyring } from '../harness/fixed-keyring';
import { FileVerificationRecords } from '../../stores/local/file-records';

// Whatever a provider or the service answers, a results fetch stays bounded: attachments are
// checked against the declared size before and after the download, identity fields are capped.
describe('results fetching is bounded', () => {
  let emulator: Emulator;
  let identity: IdentityClient;
  let dataDir: string;
  beforeAll(async () => {
    emulator = await startEmulator({ seed: 31 });
    emulator.store.script = { ...emulator.store.script, latencyMs: 0 };
    identity = createIdentityClient({ baseUrl: emulator.baseUrl, apiKey: emulator.apiKeys[0] ?? '' });
    dataDir = await mkdtemp(join(tmpdir(), 'idv-results-'));
  });
  afterAll(async () => {
    await identity.close();
    await emulator.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  const vault = () => new FileSessionVault(join(dataDir, 'vault'));
  const keyring = new FixedKeyring();
  const dataKeys = () => new DataKeys(new FileDataKeyStore(join(dataDir, 'data-keys')), keyring);

  /** A succeeded session with identity data and one attachment, its key in the vault. */
  async function succeededSession(): Promise<SessionRecord> {
    const created = await identity.sessions.createDirectProviderSession({
      verificationProfileId: emulator.verificationProfiles[0]?.id ?? '',
      provider: 'trinsic-test-database-lookup',
      capabilities: ['PollResult'],
      providerInput: {
        'trinsic-test-database-lookup': { givenName: 'Ada', familyName: 'Lovelace', identityCode: '123456' },
      },
    });
    await vault().claim(created.sessionId, {
      workflowId: `results-test-${created.sessionId}`,
      profileId: emulator.verificationProfiles[0]?.id ?? '',
      resultsAccessKey: created.resultCollection.resultsAccessKey,
      collectionMethod: created.resultCollection.method,
      nextStep: { method: created.nextStep.method, content: created.nextStep.content },
    });
    await identity.sessions.get(created.sessionId);
    const session = emulator.store.sessions.get(created.sessionId);
    if (!session?.identity) throw new Error('the session did not succeed');
    return session;
  }

  const fetch = async (
    sessionId: string,
    limits: Partial<ResultLimits> = {},
    info: { scheduledTimestampMs?: number; currentAttemptScheduledTimestampMs?: number } = {},
  ) => {
    const activities = createActivities({
      identity,
      vault: vault(),
      blobs: new LocalBlobStore(join(dataDir, 'blobs')),
      records: new FileVerificationRecords(join(dataDir, 'records')),
      dataKeys: dataKeys(),
      resultLimits: limits,
    });
    const dataKeyId = await dataKeys().create();
    return await new MockActivityEnvironment(info)
      .run(
        (id: string) => activities.fetchResults({ sessionId: id, mode: 'data+attachments', dataKeyId }),
        sessionId,
      )
      .catch((error: unknown) => error);
  };

  const refusal = (result: unknown) => {
    expect(result).toBeInstanceOf(ApplicationFailure);
    expect(result).toMatchObject({ nonRetryable: true });
    return (result as ApplicationFailure).type;
  };

  it('refuses an attachment declared larger than the bound before downloading it', async () => {
    const session = await succeededSession();
    expect(refusal(await fetch(session.id, { maxAttachmentBytes: 10 }))).toBe('ResultsRefusedError');
  });

  it('refuses an attachment whose content does not have its declared size', async () => {
    const session = await succeededSession();
    const [attachment] = session.attachments.values();
    if (attachment) attachment.bytes = Buffer.concat([attachment.bytes, Buffer.from('extra')]);
    expect(refusal(await fetch(session.id))).toBe('ResultsRefusedError');
  });

  it('stops reading an attachment answer far larger than declared', async () => {
    const session = await succeededSession();
    const [attachment] = session.attachments.values();
    if (attachment) attachment.bytes = Buffer.alloc(2 * 1024 * 1024, 1);
    expect(refusal(await fetch(session.id))).toBe('ResponseTooLargeError');
  });

  // The interface lets GetSessionResult answer `identityData: null`: a succeeded session whose
  // data is not there (yet) is no success without data.
  it('asks again for identity data a succeeded session answered without, then refuses', async () => {
    const session = await succeededSession();
    session.identity = undefined;
    const first = await fetch(
      session.id,
      {},
      { scheduledTimestampMs: 0, currentAttemptScheduledTimestampMs: 0 },
    );
    expect(first).toBeInstanceOf(Error);
    expect(first).toMatchObject({ name: 'ResultsNotReadyError' });
    expect(first).not.toBeInstanceOf(ApplicationFailure);
    const late = await fetch(
      session.id,
      {},
      { scheduledTimestampMs: 0, currentAttemptScheduledTimestampMs: MISSING_IDENTITY_WAIT_MS },
    );
    expect(refusal(late)).toBe('ResultsRefusedError');
  });

  it('replaces an oversized provider output by a marker instead of copying it', async () => {
    const session = await succeededSession();
    (session.identity as Record<string, unknown>).providerOutput = { blob: 'x'.repeat(100_000) };
    const result = (await fetch(session.id)) as FetchedResults;
    // No field of the person's in the clear (a name of three letters may occur in ciphertext).
    expect(JSON.stringify(result)).not.toMatch(/givenName|Lovelace/);
    const identity = (await dataKeys().open(result.identity as Sealed)) as Record<string, unknown>;
    expect(identity.providerOutput).toEqual({ omitted: 'too-large', sizeBytes: expect.any(Number) });
    expect(identity.person).toMatchObject({ givenName: 'Ada' });
  });

  it('keeps the person of a results answer larger than an ordinary body, its provider output marked', async () => {
    // An mDL's output holds images (base64url in the provider's fields): the answer outgrows 1 MiB.
    const session = await succeededSession();
    (session.identity as Record<string, unknown>).providerOutput = { portrait: 'x'.repeat(3 * 1024 * 1024) };
    const result = (await fetch(session.id)) as FetchedResults;
    const identity = (await dataKeys().open(result.identity as Sealed)) as Record<string, unknown>;
    expect(identity.providerOutput).toEqual({ omitted: 'too-large', sizeBytes: expect.any(Number) });
    expect(identity.person).toMatchObject({ givenName: 'Ada' });
  });
});
