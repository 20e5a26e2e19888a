import { type CallOptions } from '../http/http-core';
import { type ListRedirectUrisQuery, type ListSessionsQuery } from './inputs';
import { type RedirectUrisApi } from './redirect-uris-api';
import { type RedirectUri } from './schemas/redirect-uri';
import { type Session } from './schemas/session';
import { type SessionsApi } from './sessions-api';

/** Every session of a profile, page by page, stopping when the service says there is no `more`. */
export async function* paginateSessions(
  sessions: SessionsApi,
  verificationProfileId: string,
  query: Omit<ListSessionsQuery, 'page'> = {},
  options: CallOptions = {},
): AsyncGenerator<Session> {
  for (let page = 1; ; page += 1) {
    const answer = await sessions.list(verificationProfileId, { ...query, page }, options);
    yield* answer.sessions;
    if (!answer.more || answer.sessions.length === 0) return;
  }
}

/** Every redirect URI of the environment, page by page, stopping when there is no `more`. */
export async function* paginateRedirectUris(
  redirectUris: RedirectUrisApi,
  query: Omit<ListRedirectUrisQuery, 'page'> = {},
  options: CallOptions = {},
): AsyncGenerator<RedirectUri> {
  for (let page = 1; ; page += 1) {
    const answer = await redirectUris.list({ ...query, page }, options);
    yield* answer.uris;
    if (!answer.more || answer.uris.length === 0) return;
  }
}
