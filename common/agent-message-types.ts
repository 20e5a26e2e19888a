/** Message types of the earlier platform's agent events. */
export const agentMessageTypes = [
  'new_connection',
  'credential_request',
  'verification',
  'new_inbox_message',
] as const;
/** One of {@link agentMessageTypes}. */
export type AgentMessageType = (typeof agentMessageTypes)[number];

/** Characters of the ids the earlier platform sends (objects, connections): safe in a workflow ID. */
export const PLATFORM_ID_CHARACTERS = /^[A-Za-z0-9._:-]+$/;
/** Longest id of the earlier platform taken. */
export const PLATFORM_ID_MAX = 200;

/** Whether a value is an id as the platform sends them, and the receiver takes them. */
export function isPlatformId(value: unknown): value is string {
  return (
    typeof value === 'string' &&
    value.length >= 1 &&
    value.length <= PLATFORM_ID_MAX &&
    PLATFORM_ID_CHARACTERS.test(value)
  );
}
