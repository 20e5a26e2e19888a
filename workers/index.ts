// `idv-temporal/worker`: everything needed to run the verification worker inside your own
// process (your NativeConnection, task queue, store and keys), as `idv worker` does.
export { createVerificationWorker } from './verification-worker';
export type { VerificationWorkerOptions, WorkerTuning } from './verification-worker';
export { ConfigError, DEFAULT_WORKFLOW_CACHE, loadConfig } from './config';
export { CallBudget, DEFAULT_API_RATE } from '../api/http/call-budget';
export type { CallBudgetOptions, CallBudgetStats, CallPriority } from '../api/http/call-budget';
export type { IdvConfig } from './config';
export { temporalTarget } from './temporal-target';
export type { TemporalTarget } from './temporal-target';
export { runtimeOptions } from './logging';
export { installRuntime } from './telemetry/runtime';
export type { MetricsAddress, RuntimeSettings } from './telemetry/runtime';
export { apiCallMetrics } from './telemetry/api-metrics';
export { budgetMetrics } from './telemetry/budget-metrics';
export { workerTracing } from './telemetry/tracing';
export type { TracingOptions, WorkerTracing } from './telemetry/tracing';
export { tracingFromEnvironment } from './telemetry/otlp-tracing';
export { createIdentityClient } from '../api/identity/identity-client';
export type { IdentityClient, IdentityClientOptions } from '../api/identity/identity-client';
export { defaultResultLimits } from '../activities/result-limits';
export type { ResultLimits } from '../activities/result-limits';
export { encryptingDataConverter, failureConverterPath } from '../codec/data-converter';
export { EncryptionKeysError, newEncryptionKeyEntry, parseEncryptionKeys } from '../codec/encryption-keys';
export type { EncryptionKey } from '../codec/encryption-keys';
export { openStore, StoreUnavailableError } from '../stores/open-store';
export type { StoreLocation } from '../stores/open-store';
export type { IdvStore } from '../stores/idv-store';
/** The workflow bundle's entry, for `bundleWorkflowCode({ workflowsPath, failureConverterPath })`. */
export const workflowsPath = require.resolve('../workflows/index');
