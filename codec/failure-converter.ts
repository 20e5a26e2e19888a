import { DefaultFailureConverter } from '@temporalio/common';

/**
 * Failure messages and stack traces travel as an encoded payload (so the codec encrypts them),
 * not as plain text in history. Loaded by path into the workflow bundle and by clients.
 */
export const failureConverter = new DefaultFailureConverter({ encodeCommonAttributes: true });
