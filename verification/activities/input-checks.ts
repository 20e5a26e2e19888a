import { verificationInputProblems } from '../domain/verification';

/**
 * The verification workflow's input check, run as a local activity: the input schema is the
 * client's (one source), and zod stays out of the workflow sandbox, where every workflow a worker
 * holds or replays would evaluate it again (milliseconds and megabytes each).
 */
export function inputCheckActivities() {
  return {
    /** Every rule the input breaks, in words; empty when it holds. */
    checkVerificationInput(input: unknown): Promise<string[]> {
      return Promise.resolve(verificationInputProblems(input));
    },
  };
}
