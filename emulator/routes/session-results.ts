import { ok, type Route } from '../http/context';
import { badRequest, invalid, notFound } from '../http/problems';
import { requiredString, uuidParam } from '../http/validate';
import { finish, sessionToWire, stepToWire } from '../state/sessions';
import { unlockedSessionOf } from './session-access';

/** GetSessionResult, GetAttachment, RefreshStepContent and SubmitNativeChallengeResponse. */
export const sessionResultRoutes: Route[] = [
  {
    method: 'POST',
    pattern: '/api/v1/sessions/:sessionId/results',
    operation: 'GetSessionResult',
    scope: 'identity',
    handle(context) {
      const { session } = unlockedSessionOf(context);
      return ok({ session: sessionToWire(session), identityData: session.identity ?? null });
    },
  },
  {
    method: 'POST',
    pattern: '/api/v1/sessions/:sessionId/attachments/:attachmentId/get',
    operation: 'GetAttachment',
    scope: 'identity',
    handle(context) {
      const attachmentId = uuidParam(context, 'attachmentId');
      const { session } = unlockedSessionOf(context);
      const attachment = session.identity ? session.attachments.get(attachmentId) : undefined;
      if (!attachment) notFound(`Attachment '${attachmentId}' was not found.`);
      return ok({ content: attachment.bytes.toString('base64'), contentType: attachment.contentType });
    },
  },
  {
    method: 'POST',
    pattern: '/api/v1/sessions/:sessionId/step/refresh',
    operation: 'RefreshStepContent',
    scope: 'identity',
    handle(context) {
      const { session } = unlockedSessionOf(context);
      const { store } = context;
      if (session.outcome.done) badRequest('The session is already finished; its step cannot be refreshed.');
      const refresh = session.step.refresh;
      if (!refresh) badRequest('The step content of this session cannot be refreshed.');
      const now = store.clock.now();
      const token = store.random.token(24);
      const content = session.step.content.replace(/(token=|code )[A-Za-z0-9]+/i, (_m, prefix: string) =>
        prefix.toLowerCase() === 'code '
          ? `${prefix}${token.slice(0, 6).toUpperCase()}`
          : `${prefix}${token}`,
      );
      session.step = {
        method: session.step.method,
        content,
        refresh: {
          expiresAtMs: now + refresh.ttlSeconds * 1000,
          refreshAfterMs: now + refresh.ttlSeconds * 800,
          ttlSeconds: refresh.ttlSeconds,
        },
      };
      return ok({ nextStep: stepToWire(session.step) });
    },
  },
  {
    method: 'POST',
    pattern: '/api/v1/sessions/:sessionId/native-challenge/submit',
    operation: 'SubmitNativeChallengeResponse',
    scope: 'identity',
    handle(context) {
      const { session, body } = unlockedSessionOf(context);
      const errors: Record<string, string[]> = {};
      const token = requiredString(body, 'responseToken', errors);
      if (Object.keys(errors).length > 0) invalid(errors);
      if (session.step.method !== 'PerformNativeChallenge')
        badRequest('This session does not expect a native challenge response.');
      if (session.outcome.done) badRequest('The session is already finished.');
      const result = token.startsWith('invalid') ? 'SecurityValidationFailed' : session.plan.result;
      finish(session, result, context.store.clock.now(), context.store.random);
      return ok({ session: sessionToWire(session) });
    },
  },
];
