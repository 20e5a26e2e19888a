import { integrationCapabilities, type IntegrationCapability } from '../../common/identity-enums';
import { type CatalogueProvider, catalogue, TEST_PROVIDER_ID } from '../catalogue';
import { ok, type RequestContext, type Route } from '../http/context';
import { badRequest, forbidden, invalid, notFound } from '../http/problems';
import { isAbsoluteUri, isUuid, jsonBody, requiredString } from '../http/validate';
import { type SessionRecord } from '../state/model';
import { firstStep, planFor, prepareAttachments, stepToWire } from '../state/sessions';
import { environmentOf } from './scope';

interface CreateRequest {
  verificationProfileId: string;
  provider: string;
  capabilities: IntegrationCapability[];
  fallback: boolean;
  redirectUrl: string | undefined;
  providerInput: Record<string, unknown>;
}

const launchCapability: Record<string, IntegrationCapability | undefined> = {
  LaunchBrowser: 'LaunchBrowser',
  DeeplinkToMobile: 'DeeplinkToMobile',
  ShowContent: 'ShowContent',
  PerformNativeChallenge: 'NativeChallenge',
};
const collectionCapability: Record<string, IntegrationCapability> = {
  PollResult: 'PollResult',
  CaptureRedirect: 'CaptureRedirect',
  SubmitNativeChallengeResponse: 'NativeChallenge',
};
const testProviderInputs = ['givenName', 'familyName', 'identityCode'];

function parse(body: Record<string, unknown>): CreateRequest {
  const errors: Record<string, string[]> = {};
  const verificationProfileId = requiredString(body, 'verificationProfileId', errors);
  if (verificationProfileId && !isUuid(verificationProfileId)) {
    errors.verificationProfileId = [`The value '${verificationProfileId}' is not valid.`];
  }
  const provider = requiredString(body, 'provider', errors);
  const capabilities = body.capabilities;
  if (!Array.isArray(capabilities) || capabilities.length === 0) {
    errors.capabilities = ['The field capabilities must contain at least one capability.'];
  } else {
    const unknown = capabilities.filter((c) => !integrationCapabilities.includes(c as IntegrationCapability));
    if (unknown.length > 0)
      errors.capabilities = unknown.map((c) => `The value '${String(c)}' is not a valid capability.`);
  }
  const fallback = body.fallbackToHostedUI;
  if (fallback !== undefined && fallback !== null && typeof fallback !== 'boolean') {
    errors.fallbackToHostedUI = ['The field fallbackToHostedUI must be a boolean.'];
  }
  const redirectUrl = body.redirectUrl;
  if (
    redirectUrl !== undefined &&
    redirectUrl !== null &&
    (typeof redirectUrl !== 'string' || !isAbsoluteUri(redirectUrl))
  ) {
    errors.redirectUrl = ['The redirect URL must be an absolute URI.'];
  }
  const languages = body.browserLanguages;
  if (
    languages !== undefined &&
    languages !== null &&
    (!Array.isArray(languages) || languages.some((l) => typeof l !== 'string'))
  ) {
    errors.browserLanguages = ['The field browserLanguages must be an array of strings.'];
  }
  const input = body.providerInput;
  if (input !== undefined && input !== null && (typeof input !== 'object' || Array.isArray(input))) {
    errors.providerInput = ['The field providerInput must be an object.'];
  }
  if (Object.keys(errors).length > 0) invalid(errors);
  return {
    verificationProfileId: verificationProfileId.toLowerCase(),
    provider,
    capabilities: capabilities as IntegrationCapability[],
    fallback: fallback === true,
    redirectUrl: typeof redirectUrl === 'string' && redirectUrl !== '' ? redirectUrl : undefined,
    providerInput: (input ?? {}) as Record<string, unknown>,
  };
}

function inputOf(request: CreateRequest, provider: CatalogueProvider): Record<string, string> {
  const raw = request.providerInput[provider.id];
  if (typeof raw !== 'object' || raw === null) return {};
  return Object.fromEntries(
    Object.entries(raw).filter((entry): entry is [string, string] => typeof entry[1] === 'string'),
  );
}

/** Decides whether the session runs directly or falls back to the hosted UI (or cannot run). */
function decideFallback(
  request: CreateRequest,
  provider: CatalogueProvider,
  input: Record<string, string>,
): boolean {
  const needed = [launchCapability[provider.launchMethod], collectionCapability[provider.collectionMethod]];
  if (provider.hasRefreshableContent) needed.push('RefreshStepContent');
  const capabilityGap = needed.some((c) => c !== undefined && !request.capabilities.includes(c));
  const missingInput =
    provider.id === TEST_PROVIDER_ID ? testProviderInputs.filter((name) => !input[name]) : [];
  if (request.fallback) {
    const errors: Record<string, string[]> = {};
    if (!request.redirectUrl)
      errors.redirectUrl = ['A redirect URL is required when fallbackToHostedUI is true.'];
    if (
      !request.capabilities.includes('LaunchBrowser') ||
      !request.capabilities.includes('CaptureRedirect')
    ) {
      errors.capabilities = [
        'LaunchBrowser and CaptureRedirect are required when fallbackToHostedUI is true.',
      ];
    }
    if (Object.keys(errors).length > 0) invalid(errors);
    return capabilityGap || missingInput.length > 0;
  }
  if (capabilityGap) badRequest('This feature is not supported for your configuration');
  if (missingInput.length > 0)
    invalid({ providerInput: [`Provider '${provider.id}' requires input: ${missingInput.join(', ')}.`] });
  if (provider.collectionMethod === 'CaptureRedirect' && !request.redirectUrl) {
    invalid({ redirectUrl: ['This field is required for providers which employ a redirect-based flow.'] });
  }
  return false;
}

function create(context: RequestContext) {
  const environmentId = environmentOf(context);
  const request = parse(jsonBody(context));
  const { store } = context;
  const profile = store.profiles.get(request.verificationProfileId);
  if (!profile) notFound(`Verification profile '${request.verificationProfileId}' was not found.`);
  if (profile.environmentId !== environmentId)
    forbidden('The verification profile belongs to another environment.');
  const provider = catalogue.find((p) => p.id === request.provider);
  if (!provider) invalid({ provider: [`Unknown provider '${request.provider}'.`] });
  if (!provider.licensed) badRequest(`Provider '${provider.id}' is not licensed for your organization.`);
  const input = inputOf(request, provider);
  const fallback = decideFallback(request, provider, input);
  // The hosted UI collects what the caller did not give: its simulated user enters a valid code.
  if (fallback && provider.id === TEST_PROVIDER_ID) input.identityCode ??= '123456';
  const now = store.clock.now();
  const id = store.random.uuid();
  const method = fallback ? 'LaunchBrowser' : provider.launchMethod;
  const ttl = !fallback && provider.hasRefreshableContent ? store.script.stepTtlSeconds : undefined;
  const session: SessionRecord = {
    id,
    environmentId,
    profileId: profile.id,
    providerId: provider.id,
    createdMs: now,
    updatedMs: now,
    resultsAccessKey: store.random.token(64),
    collectionMethod: fallback ? 'CaptureRedirect' : provider.collectionMethod,
    fallback,
    step: firstStep({ id }, method, context.baseUrl, ttl, now, store.random),
    outcome: { done: false },
    plan: planFor(
      fallback ? { ...provider, collectionMethod: 'CaptureRedirect' } : provider,
      input,
      store.script,
      now,
      store.random,
    ),
    input,
    identity: undefined,
    attachments: new Map(),
  };
  prepareAttachments(session, provider, store.random);
  store.sessions.set(id, session);
  return ok({
    sessionId: id,
    resultCollection: { method: session.collectionMethod, resultsAccessKey: session.resultsAccessKey },
    nextStep: stepToWire(session.step),
  });
}

/** CreateDirectProviderSession. */
export const createSessionRoute: Route = {
  method: 'POST',
  pattern: '/api/v1/sessions/provider/direct',
  operation: 'CreateDirectProviderSession',
  scope: 'identity',
  handle: create,
};
