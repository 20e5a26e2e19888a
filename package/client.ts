// `idv-temporal/client`: what a business service imports to start and follow verifications
// (and to drive the earlier platform's webhook registries, migrations and onboardings). No
// worker, emulator or command line comes with it.
export { IdvClient, NoSessionError, VerificationNotStartedError } from '../verification/client/idv-client';
export type {
  IdvClientOptions,
  VerificationFilter,
  VerificationSummary,
} from '../verification/client/idv-client';
export { VerificationEndedError, VerificationHandle } from '../verification/client/verification-handle';
export { InvalidVerificationRequestError } from '../verification/client/parse-request';
export { receiverReturnUrl } from '../verification/client/receiver-return-url';
export type { ReceiverReturnUrlOptions } from '../verification/client/receiver-return-url';
export { ReceiverSecretError } from '../codec/receiver-tokens';
export { MigrationClient, MigrationError } from '../agent-platform/client/migration-client';
export type { MigrationClientOptions, MigrationRun } from '../agent-platform/client/migration-client';
export {
  OnboardingClient,
  OnboardingError,
  onboardingErrorCodes,
} from '../agent-platform/client/onboarding-client';
export type { OnboardingClientOptions } from '../agent-platform/client/onboarding-client';
export {
  WebhookRegistryClient,
  WebhookRegistryError,
} from '../agent-platform/client/webhook-registry-client';
export type { WebhookRegistryClientOptions } from '../agent-platform/client/webhook-registry-client';
export { listFailedWork } from '../agent-platform/client/failed-work';
export type { FailedWork } from '../agent-platform/client/failed-work';
export { purgeRecords } from '../verification/client/records';
export { KeyringUnavailableError } from '../keyring/client';
export { RecordContendedError } from '../stores/verification-records';
export type { VerificationRecord } from '../stores/verification-records';
export type {
  AttachmentRef,
  NextStep,
  ResultMode,
  VerificationInput,
  VerificationOutcome,
  VerificationProgress,
  VerificationRequest,
  VerificationStatus,
} from '../verification/domain/verification';
export type { MigrationReport } from '../agent-platform/domain/migration/migration-report';
export type { OnboardingInput } from '../agent-platform/domain/onboarding';
export type { OnboardingProgress, OnboardingSummary } from '../agent-platform/shared/onboarding-messages';
// Shared with the workers: the payload codec (the client must encrypt with the workers' keys) and
// the stores (the client reads sealed results and attachments where the workers put them).
export { encryptingDataConverter } from '../codec/data-converter';
export { EncryptionKeysError, newEncryptionKeyEntry, parseEncryptionKeys } from '../codec/encryption-keys';
export type { EncryptionKey } from '../codec/encryption-keys';
export { DataKeyDestroyedError } from '../codec/data-keys';
export { openStore, StoreUnavailableError } from '../stores/open-store';
export type { StoreLocation } from '../stores/open-store';
export type { IdvStore } from '../stores/idv-store';
