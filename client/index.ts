// `idv-temporal/client`: what a business service imports to start and follow verifications
// (and to drive the earlier platform's webhook registries, migrations and onboardings). No
// worker, emulator or command line comes with it.
export { IdvClient, NoSessionError, VerificationNotStartedError } from './idv-client';
export type { IdvClientOptions, VerificationFilter, VerificationSummary } from './idv-client';
export { VerificationEndedError, VerificationHandle } from './verification-handle';
export { InvalidVerificationRequestError } from './parse-request';
export { receiverReturnUrl } from './receiver-return-url';
export type { ReceiverReturnUrlOptions } from './receiver-return-url';
export { ReceiverSecretError } from '../codec/receiver-tokens';
export { MigrationClient, MigrationError } from './migration-client';
export type { MigrationClientOptions, MigrationRun } from './migration-client';
export { OnboardingClient, OnboardingError, onboardingErrorCodes } from './onboarding-client';
export type { OnboardingClientOptions } from './onboarding-client';
export { WebhookRegistryClient, WebhookRegistryError } from './webhook-registry-client';
export type { WebhookRegistryClientOptions } from './webhook-registry-client';
export type {
  AttachmentRef,
  NextStep,
  ResultMode,
  VerificationInput,
  VerificationOutcome,
  VerificationProgress,
  VerificationRequest,
  VerificationStatus,
} from '../domain/verification';
export type { MigrationReport } from '../domain/migration/migration-report';
export type { OnboardingInput } from '../domain/onboarding';
// Shared with the workers: the payload codec (the client must encrypt with the workers' keys) and
// the stores (the client reads sealed results and attachments where the workers put them).
export { encryptingDataConverter } from '../codec/data-converter';
export { EncryptionKeysError, newEncryptionKeyEntry, parseEncryptionKeys } from '../codec/encryption-keys';
export type { EncryptionKey } from '../codec/encryption-keys';
export { DataKeyDestroyedError } from '../codec/data-keys';
export { openStore, StoreUnavailableError } from '../stores/open-store';
export type { StoreLocation } from '../stores/open-store';
export type { IdvStore } from '../stores/idv-store';
