import { type IntegrationLaunchMethod, type ResultCollectionMethod } from '../common/identity-enums';

/** A provider of the emulator's catalogue, in the shape of the OpenAPI `Provider`. */
export interface CatalogueProvider {
  id: string;
  name: string;
  licensed: boolean;
  launchMethod: IntegrationLaunchMethod;
  collectionMethod: ResultCollectionMethod;
  hasRefreshableContent: boolean;
  requiresInput: boolean;
  resultsMayBeDelayedAfterRedirect: boolean;
  countries: string[];
  regions: string[];
  attachments: Array<{ type: string; contentType: string }>;
}

/** The test provider of the interface: identityCode `123456` succeeds, anything else fails. */
export const TEST_PROVIDER_ID = 'trinsic-test-database-lookup';

/** Providers the emulator offers: one per launch and collection method, and an unlicensed one. */
export const catalogue: readonly CatalogueProvider[] = [
  {
    id: TEST_PROVIDER_ID,
    name: 'Trinsic Test Database Lookup',
    licensed: true,
    launchMethod: 'None',
    collectionMethod: 'PollResult',
    hasRefreshableContent: false,
    requiresInput: true,
    resultsMayBeDelayedAfterRedirect: false,
    countries: ['US'],
    regions: ['NorthAmerica'],
    attachments: [{ type: 'selfie', contentType: 'image/png' }],
  },
  {
    id: 'yoti',
    name: 'Yoti',
    licensed: true,
    launchMethod: 'DeeplinkToMobile',
    collectionMethod: 'PollResult',
    hasRefreshableContent: true,
    requiresInput: false,
    resultsMayBeDelayedAfterRedirect: false,
    countries: ['GB', 'US'],
    regions: ['Europe', 'NorthAmerica'],
    attachments: [
      { type: 'selfie', contentType: 'image/png' },
      { type: 'document_front', contentType: 'image/png' },
    ],
  },
  {
    id: 'netherlands-idin',
    name: 'iDIN',
    licensed: true,
    launchMethod: 'LaunchBrowser',
    collectionMethod: 'CaptureRedirect',
    hasRefreshableContent: false,
    requiresInput: false,
    resultsMayBeDelayedAfterRedirect: false,
    countries: ['NL'],
    regions: ['Europe'],
    attachments: [],
  },
  {
    id: 'emulator-show-code',
    name: 'Show-a-code verification',
    licensed: true,
    launchMethod: 'ShowContent',
    collectionMethod: 'PollResult',
    hasRefreshableContent: true,
    requiresInput: false,
    resultsMayBeDelayedAfterRedirect: false,
    countries: ['SE'],
    regions: ['Europe'],
    attachments: [],
  },
  {
    id: 'mdl-digital-credentials',
    name: 'Mobile Driver’s License (Digital Credentials API)',
    licensed: true,
    launchMethod: 'PerformNativeChallenge',
    collectionMethod: 'SubmitNativeChallengeResponse',
    hasRefreshableContent: false,
    requiresInput: false,
    resultsMayBeDelayedAfterRedirect: false,
    countries: ['US'],
    regions: ['NorthAmerica'],
    attachments: [{ type: 'document_portrait', contentType: 'image/png' }],
  },
  {
    id: 'clear',
    name: 'CLEAR',
    licensed: false,
    launchMethod: 'LaunchBrowser',
    collectionMethod: 'CaptureRedirect',
    hasRefreshableContent: false,
    requiresInput: false,
    resultsMayBeDelayedAfterRedirect: true,
    countries: ['US'],
    regions: ['NorthAmerica'],
    attachments: [{ type: 'selfie', contentType: 'image/png' }],
  },
];

/** The wire shape of a catalogue entry (OpenAPI `Provider`). */
export function providerToWire(provider: CatalogueProvider, logoBaseUrl: string): Record<string, unknown> {
  return {
    id: provider.id,
    name: provider.name,
    logoUrl: `${logoBaseUrl}/_emulator/logos/${provider.id}.png`,
    subtext: provider.countries.join(', '),
    description: `${provider.name} (emulated)`,
    geography: provider.regions,
    regions: provider.regions,
    countries: provider.countries,
    subdivisions: [],
    licensed: provider.licensed,
    launchMethod: provider.launchMethod,
    collectionMethod: provider.collectionMethod,
    resultsMayBeDelayedAfterRedirect: provider.resultsMayBeDelayedAfterRedirect,
    hasRefreshableContent: provider.hasRefreshableContent,
    requiresInput: provider.requiresInput,
    hasTrinsicInterface: true,
    supportsDirectProviderSessions: true,
    supportedLanguages: [{ code: 'en', label: 'English' }],
    availableAttributes: [
      { scope: 'person.givenName', outputted: 'Always' },
      { scope: 'person.familyName', outputted: 'Always' },
      { scope: 'person.dateOfBirth', outputted: 'Sometimes' },
    ],
    availableAttachments: provider.attachments.map((a) => ({ type: a.type, outputted: 'Always' })),
    subProviders: null,
    liveHealth: 'Online',
    testHealth: 'Online',
  };
}
