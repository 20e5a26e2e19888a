import { sessionErrorCodes, type SessionErrorCode } from '../../common/identity-enums';
import { agentMessageTypes, type AgentEvent, deliverAgentEvent } from '../deliveries';
import { ok, type RequestContext, type Route } from '../http/context';
import { type FaultInjector, type FaultSpec, MAX_FAULT_DELAY_MS } from '../http/faults';
import { badRequest, invalid, notFound } from '../http/problems';
import { jsonBody, uuidParam } from '../http/validate';
import { type SessionRecord, type SessionScript } from '../state/model';
import { finish } from '../state/sessions';

const PREFIX = '/_emulator';

function controlledSession(context: RequestContext): SessionRecord {
  const id = uuidParam(context, 'sessionId');
  const session = context.store.session(id);
  if (!session) notFound(`Session '${id}' was not found.`);
  return session;
}

function optionalBody(context: RequestContext): Record<string, unknown> {
  return context.body.length === 0 ? {} : jsonBody(context);
}

function nonNegative(
  body: Record<string, unknown>,
  name: string,
  errors: Record<string, string[]>,
): number | undefined {
  const value = body[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0)
    errors[name] = [`${name} must be a number >= 0.`];
  return typeof value === 'number' ? value : undefined;
}

function errorCodeOf(value: unknown, fallback: SessionErrorCode): SessionErrorCode {
  if (value === undefined) return fallback;
  if (!sessionErrorCodes.includes(value as SessionErrorCode))
    invalid({ errorCode: [`Unknown error code ${JSON.stringify(value)}.`] });
  return value as SessionErrorCode;
}

function endSession(result: (body: Record<string, unknown>) => 'success' | SessionErrorCode) {
  return (context: RequestContext) => {
    const session = controlledSession(context);
    if (session.outcome.done) badRequest('The session is already finished.');
    finish(session, result(optionalBody(context)), context.store.clock.now(), context.store.random);
    return ok(sessionView(session));
  };
}

/** What tests can see of a session beyond the wire: the plan, redaction and stored data. */
export function sessionView(session: SessionRecord) {
  return {
    id: session.id,
    providerId: session.providerId,
    profileId: session.profileId,
    outcome: session.outcome,
    fallback: session.fallback,
    userCompletesAt: session.plan.atMs === undefined ? null : new Date(session.plan.atMs).toISOString(),
    plannedResult: session.plan.result,
    redacted: session.redacted
      ? { at: new Date(session.redacted.atMs).toISOString(), by: session.redacted.by }
      : null,
    hasIdentityData: session.identity !== undefined,
    attachmentCount: session.attachments.size,
    step: { method: session.step.method, content: session.step.content },
  };
}

function parseScript(body: Record<string, unknown>, current: SessionScript): SessionScript {
  const errors: Record<string, string[]> = {};
  const outcome = body.outcome ?? current.outcome;
  const outcomes = ['by-input', 'success', 'manual', ...sessionErrorCodes];
  if (typeof outcome !== 'string' || !outcomes.includes(outcome))
    errors.outcome = [`outcome must be one of ${outcomes.join(', ')}.`];
  const fixed = nonNegative(body, 'latencyMs', errors);
  const min = nonNegative(body, 'latencyMinMs', errors);
  const max = nonNegative(body, 'latencyMaxMs', errors);
  const ttl = nonNegative(body, 'stepTtlSeconds', errors);
  if ((min === undefined) !== (max === undefined) || (min !== undefined && max !== undefined && min > max)) {
    if (min !== undefined || max !== undefined)
      errors.latencyMinMs = ['latencyMinMs and latencyMaxMs go together, min <= max.'];
  }
  if (body.redactionSticks !== undefined && typeof body.redactionSticks !== 'boolean')
    errors.redactionSticks = ['redactionSticks must be true or false.'];
  if (Object.keys(errors).length > 0) invalid(errors);
  const latencyMs = min !== undefined && max !== undefined ? { min, max } : (fixed ?? current.latencyMs);
  const sticks = (body.redactionSticks as boolean | undefined) ?? current.redactionSticks;
  return {
    outcome: outcome as SessionScript['outcome'],
    latencyMs,
    stepTtlSeconds: ttl ?? current.stepTtlSeconds,
    ...(sticks === undefined ? {} : { redactionSticks: sticks }),
  };
}

function parseFault(body: Record<string, unknown>): { operation: string; spec: FaultSpec } {
  const errors: Record<string, string[]> = {};
  const spec: FaultSpec = {};
  for (const name of ['errorStatus', 'retryAfterSeconds', 'count', 'skip', 'durationMs'] as const) {
    const value = nonNegative(body, name, errors);
    if (value !== undefined) spec[name] = value;
  }
  for (const name of ['latencyMs', 'slowBodyMs', 'lateMs'] as const) {
    const value = nonNegative(body, name, errors);
    if (value !== undefined && value > MAX_FAULT_DELAY_MS)
      errors[name] = [`${name} must be at most ${MAX_FAULT_DELAY_MS} (about 24.8 days).`];
    if (value !== undefined) spec[name] = value;
  }
  for (const name of [
    'errorRate',
    'errorAfterRate',
    'rateLimitRate',
    'dropRate',
    'dropResponseRate',
    'lateRate',
  ] as const) {
    const value = nonNegative(body, name, errors);
    if (value !== undefined && value > 1) errors[name] = [`${name} must be between 0 and 1.`];
    if (value !== undefined) spec[name] = value;
  }
  if (body.errorDetail !== undefined) {
    if (typeof body.errorDetail === 'string' && body.errorDetail.length <= 1_000)
      spec.errorDetail = body.errorDetail;
    else errors.errorDetail = ['errorDetail must be a string of at most 1000 characters.'];
  }
  if (body.whenSessionDone !== undefined) {
    if (typeof body.whenSessionDone === 'boolean') spec.whenSessionDone = body.whenSessionDone;
    else errors.whenSessionDone = ['whenSessionDone must be true or false.'];
  }
  if (body.sessionId !== undefined) {
    if (typeof body.sessionId === 'string' && body.sessionId.length > 0 && body.sessionId.length <= 200)
      spec.sessionId = body.sessionId;
    else errors.sessionId = ['sessionId must be a session id.'];
  }
  if (body.mergeBody !== undefined) {
    if (typeof body.mergeBody === 'object' && body.mergeBody !== null && !Array.isArray(body.mergeBody))
      spec.mergeBody = body.mergeBody as Record<string, unknown>;
    else errors.mergeBody = ['mergeBody must be a JSON object.'];
  }
  const operation = body.operation ?? '*';
  if (typeof operation !== 'string') errors.operation = ['operation must be an operation name or *.'];
  if (Object.keys(errors).length > 0 || typeof operation !== 'string') invalid(errors);
  return { operation, spec };
}

function parseAgentEvent(body: Record<string, unknown>): AgentEvent {
  const errors: Record<string, string[]> = {};
  for (const name of ['tenant', 'object_id', 'connection_id']) {
    if (typeof body[name] !== 'string' || body[name] === '')
      errors[name] = [`The ${name} field is required.`];
  }
  if (!agentMessageTypes.includes(body.message_type as AgentEvent['message_type'])) {
    errors.message_type = [`message_type must be one of ${agentMessageTypes.join(', ')}.`];
  }
  if (Object.keys(errors).length > 0) invalid(errors);
  return body as unknown as AgentEvent;
}

/** The control API under `/_emulator`, for tests, demos and benchmarks. */
export function controlRoutes(faults: FaultInjector): Route[] {
  const route = (
    method: Route['method'],
    path: string,
    operation: string,
    handle: Route['handle'],
  ): Route => ({
    method,
    pattern: `${PREFIX}${path}`,
    operation,
    scope: 'control',
    handle,
  });
  return [
    route('GET', '/health', 'ControlHealth', () => ok({ ok: true })),
    route('GET', '/counters', 'ControlCounters', (context) => ok(context.store.countersJson())),
    route('DELETE', '/counters', 'ControlResetCounters', (context) => {
      context.store.counters.byOperation.clear();
      context.store.counters.bySession.clear();
      context.store.counters.bySecond.clear();
      context.store.counters.seenDone.clear();
      return { status: 204 };
    }),
    route('GET', '/sessions/:sessionId', 'ControlGetSession', (context) =>
      ok(sessionView(controlledSession(context))),
    ),
    route(
      'POST',
      '/sessions/:sessionId/complete',
      'ControlComplete',
      endSession(() => 'success'),
    ),
    route(
      'POST',
      '/sessions/:sessionId/fail',
      'ControlFail',
      endSession((body) => errorCodeOf(body.errorCode, 'Other')),
    ),
    route(
      'POST',
      '/sessions/:sessionId/abandon',
      'ControlAbandon',
      endSession(() => 'UserAbandoned'),
    ),
    route('POST', '/sessions/:sessionId/delay', 'ControlDelay', (context) => {
      const session = controlledSession(context);
      const errors: Record<string, string[]> = {};
      const ms = nonNegative(optionalBody(context), 'ms', errors);
      if (ms === undefined) errors.ms = ['ms is required.'];
      if (Object.keys(errors).length > 0) invalid(errors);
      if (session.outcome.done) badRequest('The session is already finished.');
      session.plan = { ...session.plan, atMs: context.store.clock.now() + (ms ?? 0) };
      return ok(sessionView(session));
    }),
    route('GET', '/script', 'ControlGetScript', (context) => ok(context.store.script)),
    route('PUT', '/script', 'ControlSetScript', (context) => {
      context.store.script = parseScript(jsonBody(context), context.store.script);
      return ok(context.store.script);
    }),
    route('GET', '/faults', 'ControlGetFaults', () => ok(faults.list())),
    route('PUT', '/faults', 'ControlSetFaults', (context) => {
      const { operation, spec } = parseFault(jsonBody(context));
      faults.set(operation, spec);
      return ok(faults.list());
    }),
    route('DELETE', '/faults', 'ControlClearFaults', () => {
      faults.clear();
      return { status: 204 };
    }),
    route('POST', '/clock/advance', 'ControlAdvanceClock', (context) => {
      const errors: Record<string, string[]> = {};
      const ms = nonNegative(jsonBody(context), 'ms', errors);
      if (ms === undefined) errors.ms = ['ms is required.'];
      if (Object.keys(errors).length > 0) invalid(errors);
      context.store.clock.advance(ms ?? 0);
      return ok({ now: new Date(context.store.clock.now()).toISOString() });
    }),
    route('POST', '/agent-events', 'ControlAgentEvent', async (context) => {
      const event = parseAgentEvent(jsonBody(context));
      if (!context.store.agentDefinitions.has(event.tenant))
        notFound(`Tenant '${event.tenant}' was not found.`);
      return ok({ deliveries: await deliverAgentEvent(context.store, event) });
    }),
    route('GET', '/launch/:sessionId', 'ControlLaunchPage', (context) => ({
      status: 200,
      headers: { 'content-type': 'text/html; charset=utf-8' },
      body: `<!doctype html><title>Emulated verification</title><p>Emulated verification of session ${controlledSession(context).id}.</p>`,
    })),
  ];
}
