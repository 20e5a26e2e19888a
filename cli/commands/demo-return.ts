import { request } from 'undici';
import { type IdvClient } from '../../verification/client/idv-client';
import { receiverReturnUrl } from '../../verification/client/receiver-return-url';
import { type VerificationRequest } from '../../verification/domain/verification';
import { emulatorControl } from '../../emulator/control-client';
import { type EmbeddedStack } from '../../workers/dev/embedded-stack';
import { devReceiverSecret } from '../../workers/encryption-keys-source';

const FINAL_URL = 'https://shop.example/thanks';

/** What the browser gets at a URL: the status, and where it is sent on. */
async function browse(url: string): Promise<string> {
  const response = await request(url);
  await response.body.dump();
  const location = response.headers.location;
  return `${response.statusCode}${typeof location === 'string' ? ` ${location}` : ''}`;
}

/**
 * The redirect part of `idv demo`: a verification polled once a minute, whose `redirectUrl` is the
 * stack receiver's tokened return URL. The person finishes at the service; the same path without
 * its token is refused like an unknown reference; through the tokened one the browser goes on to
 * the final URL and the verification learns its outcome at once.
 */
export async function demoReturn(
  stack: EmbeddedStack,
  idv: IdvClient,
  draft: VerificationRequest,
  record: (scenario: string, expected: string, got: string) => void,
): Promise<void> {
  const receiverUrl = stack.info.receiverUrl ?? '';
  const returnUrl = receiverReturnUrl({
    receiverUrl,
    receiverSecret: await devReceiverSecret(stack.dataDir),
    reference: draft.reference,
  });
  const script = stack.emulator.store.script;
  stack.emulator.store.script = { ...script, outcome: 'manual' };
  try {
    const { handle, nextStep } = await idv.startVerification({
      ...draft,
      redirectUrl: returnUrl,
      finalUrl: FINAL_URL,
      polling: { initialMs: 60_000, maxMs: 60_000 },
    });
    await emulatorControl(stack.emulator.controlUrl)('POST', `/sessions/${nextStep.sessionId}/complete`);
    record(
      'return without its token is refused',
      '404',
      await browse(`${receiverUrl}/return/${draft.reference}`),
    );
    record('return through the receiver’s tokened URL', `303 ${FINAL_URL}`, await browse(returnUrl));
    const outcome = await Promise.race([
      handle.result().then((result) => result.status),
      new Promise<string>((resolve) => setTimeout(resolve, 30_000, 'still waiting for a poll').unref()),
    ]);
    record('  the verification learns its outcome at once', 'succeeded', outcome);
  } finally {
    stack.emulator.store.script = script;
  }
}
