/** Every workflow of the project has an ID starting with this. */
const PROJECT = 'idv-';

/**
 * The kinds of workflow besides verifications, by the prefix their IDs take after `idv-`: a
 * verification is `idv-<reference>`, so no reference may start with one of these.
 */
export const workflowKinds = {
  redaction: 'redact-',
  ending: 'end-',
  orphanSweep: 'orphans-',
  keyring: 'keyring-',
  webhookRegistry: 'agent-webhooks-',
  connection: 'connection-',
  onboarding: 'onboarding-',
  migration: 'migration-',
} as const;

/**
 * An onboarding's verification is a verification whose reference starts with this: inside the
 * onboarding kind's prefix, so no business reference can take it, and no onboarding's ID either
 * (no tenant is named `verification`, see `tenantNameProblem`).
 */
export const ONBOARDING_VERIFICATION_PREFIX = `${workflowKinds.onboarding}verification:`;

/** A kind of workflow besides verifications. */
export type WorkflowKind = keyof typeof workflowKinds;

/** The ID of a workflow of `kind` named by `name`. */
export function kindWorkflowId(kind: WorkflowKind, name: string): string {
  return `${PROJECT}${workflowKinds[kind]}${name}`;
}

/** The ID of the verification of a business reference. */
export function referenceWorkflowId(reference: string): string {
  return `${PROJECT}${reference}`;
}

/** The reference of a verification's workflow ID; undefined for another kind of workflow. */
export function referenceOfWorkflowId(workflowId: string): string | undefined {
  if (!workflowId.startsWith(PROJECT)) return undefined;
  const rest = workflowId.slice(PROJECT.length);
  const verification =
    rest.startsWith(ONBOARDING_VERIFICATION_PREFIX) || reservedPrefixOf(rest) === undefined;
  return verification ? rest : undefined;
}

/** The kind prefix a reference starts with (it would name another kind's workflow), if any. */
export function reservedPrefixOf(reference: string): string | undefined {
  return Object.values(workflowKinds).find((prefix) => reference.startsWith(prefix));
}

/** The most bytes (UTF-8) of a workflow ID Temporal takes by default. */
const WORKFLOW_ID_MAX_BYTES = 1_000;

/**
 * Whether `value` can name the workflow a verification reports to (`reportTo`): no whitespace,
 * within Temporal's length. A signal to any other is refused by the server as a command, which
 * fails the workflow task, again at each retry.
 */
export function isReportableWorkflowId(value: unknown): value is string {
  if (typeof value !== 'string' || !/^\S+$/.test(value)) return false;
  let bytes = 0;
  for (const char of value) {
    const code = char.codePointAt(0) ?? 0;
    bytes += code < 0x80 ? 1 : code < 0x800 ? 2 : code < 0x10000 ? 3 : 4;
  }
  return bytes <= WORKFLOW_ID_MAX_BYTES;
}
