// Enumerations of the identity service, spelled as its OpenAPI document spells them.

/** What the caller's UI can handle (`capabilities` of CreateDirectProviderSession). */
export const integrationCapabilities = [
  'LaunchBrowser',
  'DeeplinkToMobile',
  'ShowContent',
  'RefreshStepContent',
  'CaptureRedirect',
  'PollResult',
  'PollAfterRedirect',
  'NativeChallenge',
] as const;
/** One of {@link integrationCapabilities}. */
export type IntegrationCapability = (typeof integrationCapabilities)[number];

/** How the user is launched into a step (`nextStep.method`). */
export const integrationLaunchMethods = [
  'LaunchBrowser',
  'None',
  'DeeplinkToMobile',
  'ShowContent',
  'PerformNativeChallenge',
] as const;
/** One of {@link integrationLaunchMethods}. */
export type IntegrationLaunchMethod = (typeof integrationLaunchMethods)[number];

/** How results are collected (`resultCollection.method`). */
export const resultCollectionMethods = [
  'PollResult',
  'CaptureRedirect',
  'SubmitNativeChallengeResponse',
] as const;
/** One of {@link resultCollectionMethods}. */
export type ResultCollectionMethod = (typeof resultCollectionMethods)[number];

/** Why a session failed (`errorCode`). */
export const sessionErrorCodes = [
  'Internal',
  'Other',
  'Canceled',
  'UserAbandoned',
  'UserTimedOut',
  'Expired',
  'InvalidImage',
  'Inauthentic',
  'UnsupportedDocument',
  'AssuranceLevelNotMet',
  'SecurityValidationFailed',
  'InvalidResponse',
] as const;
/** One of {@link sessionErrorCodes}. */
export type SessionErrorCode = (typeof sessionErrorCodes)[number];

/** `OrderBy` of ListSessions. */
export const sessionOrderings = ['Created', 'Updated', 'State'] as const;
/** One of {@link sessionOrderings}. */
export type SessionOrdering = (typeof sessionOrderings)[number];

/** `OrderDirection` of ListSessions. */
export const orderDirections = ['Ascending', 'Descending'] as const;
/** One of {@link orderDirections}. */
export type OrderDirection = (typeof orderDirections)[number];

/** Provider health (`liveHealth`, `testHealth`). */
export const providerHealths = ['Online', 'Offline'] as const;

/** Whether an attribute or attachment appears in results (`outputted`). */
export const attributeAvailabilities = ['Never', 'Sometimes', 'Always'] as const;

/** Document types of identity data. */
export const documentTypes = ['Passport', 'DriversLicense', 'NationalId', 'IdCard', 'Other'] as const;

/** Sex values of identity data. */
export const sexes = ['Unknown', 'NotApplicable', 'Male', 'Female'] as const;
