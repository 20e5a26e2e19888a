import { Client } from '@temporalio/client';
import { useVerificationStack } from '../harness/verification-stack';

/** Every text of a history as the server stores it: payload bytes as UTF-8, failure texts. */
function rawTexts(value: unknown, into: string[] = []): string[] {
  if (value instanceof Uint8Array) into.push(Buffer.from(value).toString('utf8'));
  else if (typeof value === 'string') into.push(value);
  else if (Array.isArray(value)) for (const item of value) rawTexts(item, into);
  else if (value && typeof value === 'object') for (const item of Object.values(value)) rawTexts(item, into);
  return into;
}

// Payloads are encrypted by the codec: the server's history of a verification holds none of the
// person's values, nor the results access key, nor the API key, in plain text.
describe('privacy of Temporal history, end to end', () => {
  const stack = useVerificationStack();

  it('keeps every personal value and secret out of the raw history of a verification', async () => {
    await stack().control('PUT', '/script', { outcome: 'success', latencyMs: 0 });
    const { handle, nextStep } = await stack().idv.startVerification(
      stack().request({ results: 'data+attachments', redactAfter: 'never' }),
    );
    const outcome = await handle.result();
    expect(outcome.identity).toMatchObject({ person: { familyName: 'Lovelace' } });
    const session = stack().emulator.store.sessions.get(nextStep.sessionId);
    const person = (session?.identity as { person: Record<string, unknown> } | undefined)?.person;
    const document = (session?.identity as { document: Record<string, unknown> } | undefined)?.document;
    const secrets = [
      'Lovelace',
      '123456',
      String(person?.dateOfBirth),
      String((person?.address as Record<string, unknown>).line1),
      String(document?.number),
      session?.resultsAccessKey ?? 'no key',
      stack().emulator.apiKeys[0] ?? 'no api key',
    ];
    // A client without the codec sees what the server stores.
    const plain = new Client({ connection: stack().client.connection });
    const history = await plain.workflow.getHandle(handle.workflow.workflowId).fetchHistory();
    const texts = rawTexts(history).join('\n');
    expect(texts).toContain('binary/encrypted');
    for (const secret of secrets) expect(texts).not.toContain(secret);
  }, 30_000);
});
