import { type VerificationRequest } from '../../verification/domain/verification';

/** A request for the emulator's test provider that succeeds (identity code 123456). */
export function testProviderRequest(
  reference: string,
  verificationProfileId: string,
  overrides: Partial<VerificationRequest> = {},
): VerificationRequest {
  return {
    reference,
    verificationProfileId,
    provider: 'trinsic-test-database-lookup',
    capabilities: ['PollResult'],
    providerInput: {
      'trinsic-test-database-lookup': { givenName: 'Ada', familyName: 'Lovelace', identityCode: '123456' },
    },
    ...overrides,
  };
}

/** What makes a request a native challenge verification (an mDL through the browser), no results kept. */
export const nativeChallengeRequest = {
  provider: 'mdl-digital-credentials',
  capabilities: ['NativeChallenge'],
  providerInput: undefined,
  results: 'none',
  redactAfter: 'never',
} as const satisfies Partial<VerificationRequest>;

/** What makes a request a mobile verification (yoti: a deep link to the phone, a step that refreshes, two attachments). */
export const mobileRequest = {
  provider: 'yoti',
  capabilities: ['DeeplinkToMobile', 'PollResult', 'RefreshStepContent'],
  providerInput: undefined,
} as const satisfies Partial<VerificationRequest>;
