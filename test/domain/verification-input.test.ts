import { onboardingVerificationRequest } from '../../agent-platform/domain/onboarding';
import { verificationInputProblems } from '../../verification/domain/verification';

/** A valid workflow input, as the client makes it. */
const input = {
  reference: 'order-1',
  verificationProfileId: '1b0f7c2e-8d3a-4b6e-9f1a-2c3d4e5f6a7b',
  provider: 'yoti',
  capabilities: ['PollResult'],
  timeout: 3_600_000,
  results: 'data',
  redactAfter: 0,
  dataKeyId: 'key-1',
};

// One schema for the verification input, parsed by the client and the workflow. The personal-data
// heuristic guards what callers type; an onboarding's reference (platform ids, not anyone's data)
// is exempt from it (agent-platform/domain/onboarding.ts), so the workflow reads references by shape.
describe("an onboarding's verification input", () => {
  it('that the onboarding accepts, its verification workflow accepts too', () => {
    const parsed = onboardingVerificationRequest('acme', 'conn-2024-05-17', {
      verificationProfileId: '1b0f7c2e-8d3a-4b6e-9f1a-2c3d4e5f6a7b',
      provider: 'yoti',
      capabilities: ['PollResult'],
    });
    // As prepareOnboardingVerification hands it to the workflow (a data key added).
    expect(verificationInputProblems({ ...parsed, dataKeyId: 'key-1' })).toEqual([]);
  });
});

// STYLE.md: `z.object` for what we read (unknown keys dropped), `z.strictObject` for what we accept.
// The workflow reads its input; a client one release ahead of the workers (clients and workers
// are upgraded apart, and a new build takes new work only once promoted) may send a field more.
describe('a verification input from a newer client', () => {
  it('is read by the workflow, the field it does not know dropped', () => {
    expect(verificationInputProblems(input)).toEqual([]);
    expect(verificationInputProblems({ ...input, aNewOption: true })).toEqual([]);
  });
});

// The provider id is shown in every verification's summary, a search attribute no codec encrypts
// and whose size the server bounds: an id as the service issues them, never free text.
describe("a verification input's provider", () => {
  it('is an id: bounded, letters, digits and . _ : -', () => {
    expect(verificationInputProblems({ ...input, provider: 'mdl-digital-credentials' })).toEqual([]);
    expect(verificationInputProblems({ ...input, provider: 'p'.repeat(100) })).toEqual([]);
    expect(verificationInputProblems({ ...input, provider: 'p'.repeat(101) })).toEqual([
      'provider must be at most 100 characters',
    ]);
    expect(verificationInputProblems({ ...input, provider: 'Jane Doe, 1 Main St' })).toEqual([
      'provider may contain only letters, digits, . _ : and -',
    ]);
  });
});

// The person's input must be sealed under the verification's own key, which its redaction destroys.
describe("a verification input's providerInput", () => {
  const sealedUnder = (keyId: string) => ({ sealed: 'aes-256-gcm', keyId, data: 'ZGF0YQ==' });

  it("is refused when sealed under another key than the verification's", () => {
    expect(verificationInputProblems({ ...input, providerInput: sealedUnder('key-1') })).toEqual([]);
    expect(verificationInputProblems({ ...input, providerInput: sealedUnder('key-2') })).toEqual([
      "providerInput must be sealed under the verification's data key",
    ]);
  });

  it('is refused, not a failed check, when it is not sealed at all (null, plain text)', () => {
    for (const providerInput of [null, 'Jane Doe', { name: 'Jane' }])
      expect(verificationInputProblems({ ...input, providerInput })).toEqual([
        'providerInput must be sealed under the data key (IdvClient seals it)',
      ]);
  });
});
