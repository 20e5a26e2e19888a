import { orderDirections, sessionOrderings } from '../../common/identity-enums';
import { ok, type Route } from '../http/context';
import { badRequest, forbidden, notFound } from '../http/problems';
import { enumQuery, intQuery, uuidParam } from '../http/validate';
import { type SessionRecord } from '../state/model';
import { finish, redact, sessionToWire } from '../state/sessions';
import { environmentOf } from './scope';
import { sessionOf } from './session-access';

const MAX_INT32 = 2_147_483_647;

function stateRank(session: SessionRecord): number {
  if (!session.outcome.done) return 0;
  return session.outcome.success ? 1 : 2;
}

/** GetSession, ListSessions, CancelSession and RedactSession. */
export const sessionRoutes: Route[] = [
  {
    method: 'GET',
    pattern: '/api/v1/sessions/:sessionId',
    operation: 'GetSession',
    scope: 'identity',
    handle(context) {
      const record = sessionOf(context);
      const session = sessionToWire(record);
      if (session.done) context.store.seenDone(record.id);
      return ok({ session });
    },
  },
  {
    method: 'GET',
    pattern: '/api/v1/verification-profiles/:verificationProfileId/sessions',
    operation: 'ListSessions',
    scope: 'identity',
    handle(context) {
      const environmentId = environmentOf(context);
      const profileId = uuidParam(context, 'verificationProfileId');
      const orderBy = enumQuery(context, 'OrderBy', sessionOrderings) ?? 'Created';
      const direction = enumQuery(context, 'OrderDirection', orderDirections) ?? 'Descending';
      const pageSize = intQuery(context, 'PageSize', { min: 1, max: 50 }, 10);
      const page = intQuery(context, 'Page', { min: 1, max: MAX_INT32 }, 1);
      const profile = context.store.profiles.get(profileId);
      if (!profile) notFound(`Verification profile '${profileId}' was not found.`);
      if (profile.environmentId !== environmentId)
        forbidden('The verification profile belongs to another environment.');
      const sessions = [...context.store.sessions.keys()]
        .map((id) => context.store.session(id))
        .filter((s): s is SessionRecord => s?.profileId === profileId);
      const key = (s: SessionRecord) =>
        orderBy === 'Created' ? s.createdMs : orderBy === 'Updated' ? s.updatedMs : stateRank(s);
      const sign = direction === 'Ascending' ? 1 : -1;
      sessions.sort(
        (a, b) => sign * (key(a) - key(b)) || sign * (a.createdMs - b.createdMs) || a.id.localeCompare(b.id),
      );
      const start = (page - 1) * pageSize;
      return ok({
        sessions: sessions.slice(start, start + pageSize).map(sessionToWire),
        total: sessions.length,
        more: start + pageSize < sessions.length,
      });
    },
  },
  {
    method: 'POST',
    pattern: '/api/v1/sessions/:sessionId/cancel',
    operation: 'CancelSession',
    scope: 'identity',
    handle(context) {
      const session = sessionOf(context);
      if (session.outcome.done) badRequest('The session is already finished and cannot be canceled.');
      finish(session, 'Canceled', context.store.clock.now(), context.store.random);
      return ok({ session: sessionToWire(session) });
    },
  },
  {
    method: 'POST',
    pattern: '/api/v1/sessions/:sessionId/redact',
    operation: 'RedactSession',
    scope: 'identity',
    handle(context) {
      redact(sessionOf(context), context.store.clock.now(), 'request');
      return { status: 200 };
    },
  },
];
