/** The most specific message of a Temporal failure chain (an update's or activity's own reason). */
export function innermostMessage(error: Error): string {
  let current: unknown = error;
  let message = error.message;
  while (current instanceof Error) {
    if (current.message && !/^(Workflow Update failed|Activity task failed)$/.test(current.message))
      message = current.message;
    current = current.cause;
  }
  return message;
}
