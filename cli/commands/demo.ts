import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { type VerificationOutcome, type VerificationRequest } from '../../verification/domain/verification';
import { encryptingDataConverter } from '../../codec/data-converter';
import { startEmbeddedStack } from '../../workers/dev/embedded-stack';
import { devEncryptionKeys } from '../../workers/encryption-keys-source';
import { type sessionRedaction } from '../../verification/workflows/session-redaction';
import { IdvClient } from '../../verification/client/idv-client';
import { type Command } from '../command';
import { printJson } from '../output';
import { openLocalStore } from '../../stores/local/local-store';
import { demoMigration } from './demo-migration';
import { demoOnboarding, demoOnboardingSettings } from './demo-onboarding';
import { demoReturn } from './demo-return';
import { redactionWorkflowId } from '../../verification/shared/ids';

interface DemoResult {
  scenario: string;
  expected: string;
  got: string;
  ok: boolean;
}

/**
 * `idv demo`: success, failure, timeout→cancel, redaction, a return through the receiver, an
 * onboarding and a migration on a fresh embedded stack.
 */
export const demoCommand: Command = {
  name: 'demo',
  summary:
    'Run success, failure, timeout→cancel, redaction, a redirect return through the receiver, an onboarding driven by agent events and a migration (dry run, apply, again) on a fresh embedded stack, then exit',
  usage: 'demo [--json]',
  options: {},
  async run({ values }, io) {
    const say = (line: string) => values.json === true || io.stderr.write(`${line}\n`);
    const dataDir = await mkdtemp(join(tmpdir(), 'idv-demo-'));
    say(`starting the embedded stack in ${dataDir} (dev server, emulator, worker)…`);
    const stack = await startEmbeddedStack({
      dataDir,
      temporalPort: 0,
      uiPort: 0,
      taskQueue: 'idv-demo',
      onboarding: demoOnboardingSettings,
    });
    const connection = await Connection.connect({ address: stack.info.temporalAddress });
    const encryptionKeys = await devEncryptionKeys(dataDir);
    const dataConverter = encryptingDataConverter(encryptionKeys);
    const idv = new IdvClient({
      client: new Client({ connection, dataConverter }),
      store: await openLocalStore(dataDir),
      taskQueue: 'idv-demo',
    });
    const profile = stack.info.emulator?.verificationProfileId ?? '';
    const request = (
      name: string,
      identityCode: string,
      extra: Partial<VerificationRequest> = {},
    ): VerificationRequest => ({
      reference: `demo-${name}-${Date.now()}`,
      verificationProfileId: profile,
      provider: 'trinsic-test-database-lookup',
      capabilities: ['PollResult'],
      providerInput: {
        'trinsic-test-database-lookup': { givenName: 'Ada', familyName: 'Lovelace', identityCode },
      },
      redactAfter: 'never',
      ...extra,
    });
    const results: DemoResult[] = [];
    const record = (scenario: string, expected: string, outcome: VerificationOutcome | string) => {
      const got =
        typeof outcome === 'string'
          ? outcome
          : `${outcome.status}${outcome.errorCode ? ` (${outcome.errorCode})` : ''}`;
      results.push({ scenario, expected, got, ok: got === expected });
      say(`  ${got === expected ? 'ok  ' : 'FAIL'} ${scenario}: ${got}`);
    };
    try {
      say('running the scenarios…');
      const success = await idv.startVerification(
        request('success', '123456', { results: 'data+attachments' }),
      );
      record('success (identity code 123456)', 'succeeded', await success.handle.result());
      const failure = await idv.startVerification(request('failure', '000000'));
      record('failure (wrong identity code)', 'failed (Other)', await failure.handle.result());
      stack.emulator.store.script = { ...stack.emulator.store.script, outcome: 'manual' };
      const late = await idv.startVerification(request('timeout', '123456', { timeout: '3s' }));
      const timedOut = await late.handle.result();
      const atService = stack.emulator.store.sessions.get(late.nextStep.sessionId)?.outcome;
      record('timeout → cancelled at the service', 'timed-out (Canceled)', timedOut);
      record(
        '  session at the service',
        'Canceled',
        atService?.done && !atService.success ? atService.errorCode : 'still running',
      );
      stack.emulator.store.script = { ...stack.emulator.store.script, outcome: 'by-input' };
      const redacted = await idv.startVerification(
        request('redaction', '123456', { results: 'data+attachments', redactAfter: 0 }),
      );
      await redacted.handle.result();
      const report = await idv.client.workflow
        .getHandle<typeof sessionRedaction>(redactionWorkflowId({ sessionId: redacted.nextStep.sessionId }))
        .result();
      const view = stack.emulator.store.sessions.get(redacted.nextStep.sessionId);
      record(
        'redaction right after the outcome',
        'redacted',
        view?.redacted && !view.identity && report ? 'redacted' : 'data still there',
      );
      await demoReturn(stack, idv, request('return', '123456'), record);
      await demoOnboarding(stack, idv.client, 'idv-demo', record);
      await demoMigration(stack, idv.client, 'idv-demo', record);
    } finally {
      await connection.close();
      await stack.stop();
      await rm(dataDir, { recursive: true, force: true });
    }
    const passed = results.filter((r) => r.ok).length;
    if (values.json === true) printJson(io, { passed, failed: results.length - passed, results });
    else io.stdout.write(`demo: ${passed} passed, ${results.length - passed} failed\n`);
    return passed === results.length ? 0 : 1;
  },
};
