/** Message types of the earlier platform's agent events. */
export const agentMessageTypes = [
  'new_connection',
  'credential_request',
  'verification',
  'new_inbox_message',
] as const;
/** One of {@link agentMessageTypes}. */
export type AgentMessageType = (typeof agentMessageTypes)[number];
