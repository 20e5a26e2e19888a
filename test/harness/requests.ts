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
