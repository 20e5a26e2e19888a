import { type CallOptions, type HttpCore } from '../http/http-core';
import { checkInput } from '../http/input';
import { path, withQuery } from '../http/path';
import {
  createDirectProviderSessionRequestSchema,
  type CreateDirectProviderSessionRequest,
  listSessionsQuerySchema,
  type ListSessionsQuery,
  requiredTextSchema,
  uuidSchema,
} from './inputs';
import {
  getAttachmentResponseSchema,
  type GetAttachmentResponse,
  getSessionResultResponseSchema,
  type GetSessionResultResponse,
} from './schemas/identity-data';
import {
  createDirectProviderSessionResponseSchema,
  type CreateDirectProviderSessionResponse,
  type IntegrationStep,
  listSessionsResponseSchema,
  type ListSessionsResponse,
  refreshStepContentResponseSchema,
  type Session,
  sessionEnvelopeSchema,
} from './schemas/session';

/** Session operations of the identity service (`/api/v1`). */
export class SessionsApi {
  constructor(private readonly http: HttpCore) {}

  /** CreateDirectProviderSession. Not idempotent at the service: see the activity for how retries are made safe. */
  async createDirectProviderSession(
    request: CreateDirectProviderSessionRequest,
    options: CallOptions = {},
  ): Promise<CreateDirectProviderSessionResponse> {
    const operation = 'CreateDirectProviderSession';
    const body = checkInput(operation, createDirectProviderSessionRequestSchema, request);
    return await this.http.request({
      operation,
      method: 'POST',
      path: '/api/v1/sessions/provider/direct',
      body,
      schema: createDirectProviderSessionResponseSchema,
      ...options,
    });
  }

  /** GetSession. */
  async get(sessionId: string, options: CallOptions = {}): Promise<Session> {
    const operation = 'GetSession';
    const id = checkInput(operation, uuidSchema, sessionId, 'sessionId');
    const answer = await this.http.request({
      operation,
      method: 'GET',
      path: path`/api/v1/sessions/${id}`,
      schema: sessionEnvelopeSchema,
      ...options,
    });
    return answer.session;
  }

  /** ListSessions of one verification profile (one page; see `paginateSessions`). */
  async list(
    verificationProfileId: string,
    query: ListSessionsQuery = {},
    options: CallOptions = {},
  ): Promise<ListSessionsResponse> {
    const operation = 'ListSessions';
    const profileId = checkInput(operation, uuidSchema, verificationProfileId, 'verificationProfileId');
    const q = checkInput(operation, listSessionsQuerySchema, query);
    return await this.http.request({
      operation,
      method: 'GET',
      path: withQuery(path`/api/v1/verification-profiles/${profileId}/sessions`, {
        OrderBy: q.orderBy,
        OrderDirection: q.orderDirection,
        PageSize: q.pageSize,
        Page: q.page,
      }),
      schema: listSessionsResponseSchema,
      ...options,
    });
  }

  /** GetSessionResult: the session and, once it succeeded, its identity data. */
  async getResult(
    sessionId: string,
    resultsAccessKey: string,
    options: CallOptions = {},
  ): Promise<GetSessionResultResponse> {
    const operation = 'GetSessionResult';
    const id = checkInput(operation, uuidSchema, sessionId, 'sessionId');
    return await this.http.request({
      operation,
      method: 'POST',
      path: path`/api/v1/sessions/${id}/results`,
      body: {
        resultsAccessKey: checkInput(operation, requiredTextSchema, resultsAccessKey, 'resultsAccessKey'),
      },
      schema: getSessionResultResponseSchema,
      ...options,
    });
  }

  /** GetAttachment: base64 content of one attachment. */
  async getAttachment(
    args: { sessionId: string; attachmentId: string; resultsAccessKey: string },
    options: CallOptions = {},
  ): Promise<GetAttachmentResponse> {
    const operation = 'GetAttachment';
    const sessionId = checkInput(operation, uuidSchema, args.sessionId, 'sessionId');
    const attachmentId = checkInput(operation, uuidSchema, args.attachmentId, 'attachmentId');
    return await this.http.request({
      operation,
      method: 'POST',
      path: path`/api/v1/sessions/${sessionId}/attachments/${attachmentId}/get`,
      body: {
        resultsAccessKey: checkInput(
          operation,
          requiredTextSchema,
          args.resultsAccessKey,
          'resultsAccessKey',
        ),
      },
      schema: getAttachmentResponseSchema,
      ...options,
    });
  }

  /** CancelSession. */
  async cancel(sessionId: string, options: CallOptions = {}): Promise<Session> {
    const operation = 'CancelSession';
    const id = checkInput(operation, uuidSchema, sessionId, 'sessionId');
    const answer = await this.http.request({
      operation,
      method: 'POST',
      path: path`/api/v1/sessions/${id}/cancel`,
      schema: sessionEnvelopeSchema,
      ...options,
    });
    return answer.session;
  }

  /** RedactSession: removes the session's identity data at the service. */
  async redact(sessionId: string, options: CallOptions = {}): Promise<void> {
    const operation = 'RedactSession';
    const id = checkInput(operation, uuidSchema, sessionId, 'sessionId');
    await this.http.request({
      operation,
      method: 'POST',
      path: path`/api/v1/sessions/${id}/redact`,
      ...options,
    });
  }

  /** RefreshStepContent: new content for a step whose content expires. */
  async refreshStepContent(
    sessionId: string,
    resultsAccessKey: string,
    options: CallOptions = {},
  ): Promise<IntegrationStep> {
    const operation = 'RefreshStepContent';
    const id = checkInput(operation, uuidSchema, sessionId, 'sessionId');
    const answer = await this.http.request({
      operation,
      method: 'POST',
      path: path`/api/v1/sessions/${id}/step/refresh`,
      body: {
        resultsAccessKey: checkInput(operation, requiredTextSchema, resultsAccessKey, 'resultsAccessKey'),
      },
      schema: refreshStepContentResponseSchema,
      ...options,
    });
    return answer.nextStep;
  }

  /** SubmitNativeChallengeResponse: hands the device's answer to a native challenge to the service. */
  async submitNativeChallengeResponse(
    args: { sessionId: string; resultsAccessKey: string; responseToken: string },
    options: CallOptions = {},
  ): Promise<Session> {
    const operation = 'SubmitNativeChallengeResponse';
    const id = checkInput(operation, uuidSchema, args.sessionId, 'sessionId');
    const answer = await this.http.request({
      operation,
      method: 'POST',
      path: path`/api/v1/sessions/${id}/native-challenge/submit`,
      body: {
        resultsAccessKey: checkInput(
          operation,
          requiredTextSchema,
          args.resultsAccessKey,
          'resultsAccessKey',
        ),
        responseToken: checkInput(operation, requiredTextSchema, args.responseToken, 'responseToken'),
      },
      schema: sessionEnvelopeSchema,
      ...options,
    });
    return answer.session;
  }
}
