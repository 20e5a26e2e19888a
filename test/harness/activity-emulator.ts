import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createIdentityClient, type IdentityClient } from '../../api/identity/identity-client';
import { emulatorControl, type EmulatorControl } from '../../emulator/control-client';
import { type Emulator, startEmulator } from '../../emulator/emulator';

/** What {@link useActivityEmulator} gives each test. */
export interface ActivityEmulator {
  emulator: Emulator;
  identity: IdentityClient;
  /** A folder of the suite's own, for local stores. */
  dataDir: string;
  control: EmulatorControl;
  /** A session created at the emulator that runs until told otherwise (its id). */
  runningSession(): Promise<string>;
}

/**
 * For activities run without a worker (`MockActivityEnvironment`): an emulator, a client of it
 * and a folder for the suite, started before its tests and closed after them.
 */
export function useActivityEmulator(options: {
  seed: number;
  headersTimeoutMs?: number;
}): () => ActivityEmulator {
  let suite: ActivityEmulator | undefined;
  beforeAll(async () => {
    const emulator = await startEmulator({ seed: options.seed });
    const identity = createIdentityClient({
      baseUrl: emulator.baseUrl,
      apiKey: emulator.apiKeys[0] ?? '',
      ...(options.headersTimeoutMs === undefined ? {} : { headersTimeoutMs: options.headersTimeoutMs }),
    });
    const control = emulatorControl(emulator.controlUrl);
    suite = {
      emulator,
      identity,
      dataDir: await mkdtemp(join(tmpdir(), 'idv-activities-')),
      control,
      async runningSession() {
        await control('PUT', '/script', { outcome: 'manual' });
        const created = await identity.sessions.createDirectProviderSession({
          verificationProfileId: emulator.verificationProfiles[0]?.id ?? '',
          provider: 'yoti',
          capabilities: ['DeeplinkToMobile', 'PollResult', 'RefreshStepContent'],
        });
        return created.sessionId;
      },
    };
  });
  afterAll(async () => {
    if (!suite) return;
    await suite.identity.close();
    await suite.emulator.close();
    await rm(suite.dataDir, { recursive: true, force: true });
  });
  return () => {
    if (!suite) throw new Error('the activity emulator is used outside its suite');
    return suite;
  };
}
