import { type ZodType } from 'zod';
import { type CallOptions, type HttpCore } from '../http/http-core';
import { checkInput } from '../http/input';
import { readAttachmentAnswer, type ReadAttachment } from './attachment-answer';
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

/** `/api/v1/sessions/{sessionId}` + suffix, the id checked to be a uuid. */
function sessionPath(operation: string, sessionId: string, suffix = ''): string {
  return path`/api/v1/sessions/${checkInput(operation, uuidSchema, sessionId, 'sessionId')}` + suffix;
}

/** The answer bytes that carry `maxBytes` of content: base64 takes 4 per 3, plus the JSON around it. */
function attachmentBodyBytes(maxBytes: number | undefined): number | undefined {
  return maxBytes === undefined ? undefined : Math.ceil(maxBytes / 3) * 4 + 4096;
}

/** A required text argument, checked. */
function text(operation: string, value: string, field: string): string {
  return checkInput(operation, requiredTextSchema, value, field);
}

/** Session operations of the identity service (`/api/v1`). */
export class SessionsApi {
  constructor(private readonly http: HttpCore) {}

  /** A POST whose answer carries personal data or secrets: never quoted in errors. */
  async #privatePost<T>(
    request: { operation: string; target: string; body: unknown; schema: ZodType<T>; maxBodyBytes?: number },
    options: CallOptions,
  ): Promise<T> {
    const { operation, target, body, schema, maxBodyBytes } = request;
    return await this.http.request({
      operation,
      method: 'POST',
      path: target,
      body,
      schema,
      privateBody: true,
      ...(maxBodyBytes === undefined ? {} : { maxBodyBytes }),
      ...options,
    });
  }

  /** CreateDirectProviderSession. Not idempotent at the service: the activity makes retries safe. */
  async createDirectProviderSession(
    request: CreateDirectProviderSessionRequest,
    options: CallOptions = {},
  ): Promise<CreateDirectProviderSessionResponse> {
    const operation = 'CreateDirectProviderSession';
    const body = checkInput(operation, createDirectProviderSessionRequestSchema, request);
    const schema = createDirectProviderSessionResponseSchema;
    const target = '/api/v1/sessions/provider/direct';
    return await this.#privatePost({ operation, target, body, schema: schema }, options);
  }

  /** GetSession. */
  async get(sessionId: string, options: CallOptions = {}): Promise<Session> {
    const operation = 'GetSession';
    const target = sessionPath(operation, sessionId);
    const answer = await this.http.request({
      operation,
      method: 'GET',
      path: target,
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
    const target = withQuery(path`/api/v1/verification-profiles/${profileId}/sessions`, {
      OrderBy: q.orderBy,
      OrderDirection: q.orderDirection,
      PageSize: q.pageSize,
      Page: q.page,
    });
    return await this.http.request({
      operation,
      method: 'GET',
      path: target,
      schema: listSessionsResponseSchema,
      ...options,
    });
  }

  /** GetSessionResult: the session and, once it succeeded, its identity data. */
  async getResult(
    sessionId: string,
    resultsAccessKey: string,
    options: CallOptions & { maxBytes?: number } = {},
  ): Promise<GetSessionResultResponse> {
    const operation = 'GetSessionResult';
    const target = sessionPath(operation, sessionId, '/results');
    const body = { resultsAccessKey: text(operation, resultsAccessKey, 'resultsAccessKey') };
    const schema = getSessionResultResponseSchema;
    const { maxBytes, ...callOptions } = options;
    return await this.#privatePost(
      { operation, target, body, schema, ...(maxBytes === undefined ? {} : { maxBodyBytes: maxBytes }) },
      callOptions,
    );
  }

  /**
   * GetAttachment: base64 content of one attachment. `maxBytes` bounds the decoded content (the
   * answer read is bounded accordingly). @default the client's body cap
   */
  async getAttachment(
    args: { sessionId: string; attachmentId: string; resultsAccessKey: string; maxBytes?: number },
    options: CallOptions = {},
  ): Promise<GetAttachmentResponse> {
    const operation = 'GetAttachment';
    const attachmentId = checkInput(operation, uuidSchema, args.attachmentId, 'attachmentId');
    const target = sessionPath(operation, args.sessionId, path`/attachments/${attachmentId}/get`);
    const body = { resultsAccessKey: text(operation, args.resultsAccessKey, 'resultsAccessKey') };
    const schema = getAttachmentResponseSchema;
    const maxBodyBytes = attachmentBodyBytes(args.maxBytes);
    return await this.#privatePost(
      { operation, target, body, schema, ...(maxBodyBytes === undefined ? {} : { maxBodyBytes }) },
      options,
    );
  }

  /**
   * GetAttachment read as it arrives: the decoded content goes to `consume` chunk by chunk (to a
   * blob store, typically) and never sits whole in memory. `maxBytes` bounds the decoded content
   * as in {@link getAttachment}; the consumer checks the size it expects.
   */
  async downloadAttachment<R>(
    args: { sessionId: string; attachmentId: string; resultsAccessKey: string; maxBytes?: number },
    consume: (content: AsyncIterable<Buffer>) => Promise<R>,
    options: CallOptions = {},
  ): Promise<ReadAttachment<R>> {
    const operation = 'GetAttachment';
    const attachmentId = checkInput(operation, uuidSchema, args.attachmentId, 'attachmentId');
    const target = sessionPath(operation, args.sessionId, path`/attachments/${attachmentId}/get`);
    const body = { resultsAccessKey: text(operation, args.resultsAccessKey, 'resultsAccessKey') };
    const maxBodyBytes = attachmentBodyBytes(args.maxBytes);
    return await this.http.requestTokens({
      operation,
      method: 'POST',
      path: target,
      body,
      ...(maxBodyBytes === undefined ? {} : { maxBodyBytes }),
      ...options,
      read: (tokens) => readAttachmentAnswer(tokens, consume),
    });
  }

  /** CancelSession. */
  async cancel(sessionId: string, options: CallOptions = {}): Promise<Session> {
    const operation = 'CancelSession';
    const target = sessionPath(operation, sessionId, '/cancel');
    const answer = await this.http.request({
      operation,
      method: 'POST',
      path: target,
      schema: sessionEnvelopeSchema,
      ...options,
    });
    return answer.session;
  }

  /** RedactSession: removes the session's identity data at the service. */
  async redact(sessionId: string, options: CallOptions = {}): Promise<void> {
    const operation = 'RedactSession';
    await this.http.request({
      operation,
      method: 'POST',
      path: sessionPath(operation, sessionId, '/redact'),
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
    const target = sessionPath(operation, sessionId, '/step/refresh');
    const body = { resultsAccessKey: text(operation, resultsAccessKey, 'resultsAccessKey') };
    const schema = refreshStepContentResponseSchema;
    const answer = await this.#privatePost({ operation, target, body, schema: schema }, options);
    return answer.nextStep;
  }

  /** SubmitNativeChallengeResponse: hands the device's answer to a native challenge to the service. */
  async submitNativeChallengeResponse(
    args: { sessionId: string; resultsAccessKey: string; responseToken: string },
    options: CallOptions = {},
  ): Promise<Session> {
    const operation = 'SubmitNativeChallengeResponse';
    const target = sessionPath(operation, args.sessionId, '/native-challenge/submit');
    const body = {
      resultsAccessKey: text(operation, args.resultsAccessKey, 'resultsAccessKey'),
      responseToken: text(operation, args.responseToken, 'responseToken'),
    };
    const answer = await this.#privatePost(
      { operation, target, body, schema: sessionEnvelopeSchema },
      options,
    );
    return answer.session;
  }
}
