// `idv-temporal/api`: the typed HTTP clients (undici + zod) of the Identity Verification
// Service and of the earlier agent platform, usable without Temporal.
export { createIdentityClient } from './identity/identity-client';
export { CallBudget, DEFAULT_API_RATE } from './http/call-budget';
export type { CallBudgetOptions, CallBudgetStats, CallPriority } from './http/call-budget';
export type { IdentityClient, IdentityClientOptions } from './identity/identity-client';
export { identityBaseUrls, resolveIdentityBaseUrl } from './identity/base-urls';
export type { IdentityRegion } from './identity/base-urls';
export { paginateRedirectUris, paginateSessions } from './identity/pagination';
export type {
  CreateDirectProviderSessionRequest,
  ListRedirectUrisQuery,
  ListSessionsQuery,
} from './identity/inputs';
export type {
  AttachmentInfo,
  GetSessionResultResponse,
  IdentityData,
} from './identity/schemas/identity-data';
export type { Provider } from './identity/schemas/provider';
export type { ListRedirectUrisResponse, RedirectUri } from './identity/schemas/redirect-uri';
export type {
  CreateDirectProviderSessionResponse,
  IntegrationStep,
  ListSessionsResponse,
  Session,
} from './identity/schemas/session';
export { AgentClient, agentBaseUrl, createAgentClient } from './agent/agent-client';
export type { AgentClientOptions, CreateWebhookRequest } from './agent/agent-client';
export { webhookTypes } from './agent/schemas';
export type { SchemaRecord, VerificationPolicy, Webhook } from './agent/schemas';
export {
  ApiError,
  apiErrorCodes,
  ConflictError,
  ForbiddenError,
  MalformedResponseError,
  NetworkError,
  OverBudgetError,
  NotFoundError,
  RateLimitedError,
  ResponseTooLargeError,
  ServerError,
  TimeoutError,
  UnauthorizedError,
  UnexpectedStatusError,
  ValidationError,
} from './http/errors';
export type { ApiErrorCode, ApiErrorDetails } from './http/errors';
export type { ApiCall } from './http/http-core';
