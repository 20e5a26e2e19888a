// `idv-temporal/worker`: everything needed to run the verification worker inside your own
// process (your NativeConnection, task queue, store and keys), as `idv worker` does.
export { createVerificationWorker } from '../workers/verification-worker';
export type { VerificationWorkerOptions, WorkerTuning } from '../workers/verification-worker';
export { ConfigError, DEFAULT_WORKFLOW_CACHE, loadConfig } from '../workers/config';
export { CallBudget, DEFAULT_API_RATE } from '../api/http/call-budget';
export type { BudgetShare, CallBudgetOptions, CallBudgetStats, CallPriority } from '../api/http/call-budget';
export { shareCallBudget, uniqueWorkerIdentity } from '../workers/budget-share';
export type { ShareCallBudgetOptions } from '../workers/budget-share';
export type { IdvConfig } from '../workers/config';
export { temporalTarget } from '../workers/temporal-target';
export type { TemporalTarget } from '../workers/temporal-target';
export { runtimeOptions } from '../workers/logging';
export { installRuntime } from '../workers/telemetry/runtime';
export type { MetricsAddress, RuntimeSettings } from '../workers/telemetry/runtime';
export { apiCallMetrics } from '../workers/telemetry/api-metrics';
export { budgetMetrics } from '../workers/telemetry/budget-metrics';
export { workerTracing } from '../workers/telemetry/tracing';
export type { TracingOptions, WorkerTracing } from '../workers/telemetry/tracing';
export { tracingFromEnvironment } from '../workers/telemetry/otlp-tracing';
export { createIdentityClient } from '../api/identity/identity-client';
export type { IdentityClient, IdentityClientOptions } from '../api/identity/identity-client';
export { defaultResultLimits } from '../verification/activities/result-limits';
export type { ResultLimits } from '../verification/activities/result-limits';
export { encryptingDataConverter, failureConverterPath } from '../codec/data-converter';
export { EncryptionKeysError, newEncryptionKeyEntry, parseEncryptionKeys } from '../codec/encryption-keys';
export type { EncryptionKey } from '../codec/encryption-keys';
export { openStore, StoreUnavailableError } from '../stores/open-store';
export type { StoreLocation } from '../stores/open-store';
export type { IdvStore } from '../stores/idv-store';
/** The workflow bundle's entry, for `bundleWorkflowCode({ workflowsPath, failureConverterPath })`. */
export const workflowsPath = require.resolve('./workflows');
