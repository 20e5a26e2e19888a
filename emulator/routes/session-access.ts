import { type RequestContext } from '../http/context';
import { forbidden, invalid, notFound } from '../http/problems';
import { jsonBody, requiredString, uuidParam } from '../http/validate';
import { type SessionRecord } from '../state/model';
import { environmentOf } from './scope';

/** The session named by the path, visible to the caller's environment (404 unknown, 403 foreign). */
export function sessionOf(context: RequestContext): SessionRecord {
  const environmentId = environmentOf(context);
  const id = uuidParam(context, 'sessionId');
  const session = context.store.session(id);
  if (!session) notFound(`Session '${id}' was not found.`);
  if (session.environmentId !== environmentId) forbidden('The session belongs to another environment.');
  return session;
}

/** The session named by the path, unlocked by the body's `resultsAccessKey` (403 when wrong). */
export function unlockedSessionOf(context: RequestContext): {
  session: SessionRecord;
  body: Record<string, unknown>;
} {
  const session = sessionOf(context);
  const body = jsonBody(context);
  const errors: Record<string, string[]> = {};
  const key = requiredString(body, 'resultsAccessKey', errors);
  if (Object.keys(errors).length > 0) invalid(errors);
  if (key !== session.resultsAccessKey) forbidden('The results access key does not match the session.');
  return { session, body };
}
