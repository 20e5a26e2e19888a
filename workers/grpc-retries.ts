import {
  type ConnectionOptions,
  defaultGrpcRetryOptions,
  makeGrpcRetryInterceptor,
} from '@temporalio/client';

type GrpcInterceptor = NonNullable<ConnectionOptions['interceptors']>[number];

/**
 * The client's retries of a refused call (the SDK's default backoff), none started once the
 * call's deadline would have passed. That backoff waits up to 6 s, so a deadline a process sets
 * (a command's answer, the receiver's hand-off) would not hold, and a retry that starts after the
 * process closed its connection throws from its timer. Calls without a deadline retry as before.
 */
export function retriesWithinDeadline(): GrpcInterceptor {
  const backoff = defaultGrpcRetryOptions();
  // grpc-js builds the interceptors once per call: the deadline and the delays are that call's.
  return (options, nextCall) => {
    const { deadline } = options;
    const deadlineMs =
      deadline === undefined ? Infinity : typeof deadline === 'number' ? deadline : deadline.getTime();
    const delays = new Map<number, number>();
    return makeGrpcRetryInterceptor({
      retryableDecider(attempt, status) {
        if (!backoff.retryableDecider(attempt, status)) return false;
        const delayMs = backoff.delayFunction(attempt, status);
        delays.set(attempt, delayMs);
        return Date.now() + delayMs < deadlineMs;
      },
      delayFunction: (attempt, status) => delays.get(attempt) ?? backoff.delayFunction(attempt, status),
    })(options, nextCall);
  };
}
