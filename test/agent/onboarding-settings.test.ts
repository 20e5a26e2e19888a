import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { commands } from '../../cli/commands/index';
import { runCli } from '../../cli/run-cli';
import {
  onboardingInputFor,
  OnboardingSettingsError,
  parseOnboardingSettings,
} from '../../agent-platform/domain/onboarding-settings';
import { onboardingInputProblems } from '../../agent-platform/domain/onboarding';
import { readOnboardingSettings } from '../../workers/receiver/onboarding-settings-file';
import { captureIo } from '../cli/capture-io';

const PROFILE = '3f0c1a52-8d4e-4b7a-9c61-2e5d8f9a0b13';
const verification = { verificationProfileId: PROFILE, provider: 'yoti', capabilities: ['PollResult'] };

// The receiver's onboarding settings: which tenants, what to wait for, how long, which verification.
describe('onboarding settings', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'idv-onboarding-settings-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });
  const file = async (name: string, content: string) => {
    const path = join(dir, name);
    await writeFile(path, content);
    return path;
  };

  it('resolves durations and defaults, and makes each onboarded connection a valid workflow input', () => {
    const settings = parseOnboardingSettings({
      tenants: ['acme'],
      waitFor: ['new_connection', 'verification'],
      timeout: '36h',
      verification: { ...verification, timeout: '30m' },
    });
    expect(settings).toMatchObject({
      timeout: 36 * 3_600_000,
      verification: { timeout: 1_800_000, results: 'none', redactAfter: 0 },
    });
    const input = onboardingInputFor(settings, 'acme', 'conn-1');
    expect(input).toMatchObject({ tenant: 'acme', connectionId: 'conn-1', timeoutMs: 36 * 3_600_000 });
    expect(onboardingInputProblems(input)).toEqual([]);
    expect(onboardingInputFor(settings, 'globex', 'conn-1')).toBeUndefined();
    expect(
      onboardingInputFor(parseOnboardingSettings({ tenants: '*', verification }), 'globex', 'c'),
    ).toEqual(
      expect.objectContaining({
        tenant: 'globex',
        verification: expect.objectContaining({ provider: 'yoti' }),
      }),
    );
  });

  it('refuses invalid settings naming each field', () => {
    const error: unknown = (() => {
      try {
        return parseOnboardingSettings({
          tenants: ['acme', 'acme-eu'],
          waitFor: ['new_connection', 'party'],
          timeout: '2 weeks',
          verification: { ...verification, reference: 'order-1', providerInput: {} },
          extra: true,
        });
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(OnboardingSettingsError);
    expect((error as OnboardingSettingsError).problems).toEqual([
      "tenants has acme and acme-eu: one must not be the other followed by '-' (their onboarding IDs could meet)",
      'waitFor.1 must be one of new_connection, credential_request, verification, new_inbox_message',
      'timeout must be a duration from 1m to 90d, such as 7d or 36h',
      'verification has unknown fields: reference, providerInput',
      '(settings) has unknown fields: extra',
    ]);
  });

  it('refuses a timeout that is not whole milliseconds (the workflow would refuse every connection)', () => {
    expect(() => parseOnboardingSettings({ tenants: ['acme'], timeout: 90_000.5, verification })).toThrow(
      /timeout must be a duration from 1m to 90d/,
    );
  });

  it('refuses a timeout written as a bare number, with a hint, and reads ISO 8601', () => {
    expect(() => parseOnboardingSettings({ tenants: ['acme'], timeout: '600000', verification })).toThrow(
      /timeout needs a unit: '600000' could be seconds or milliseconds/,
    );
    expect(parseOnboardingSettings({ tenants: ['acme'], timeout: 'P2D', verification })).toMatchObject({
      timeout: 172_800_000,
    });
  });

  it('reads a file, naming the file in every refusal', async () => {
    const good = await file('good.json', JSON.stringify({ tenants: '*', verification }));
    await expect(readOnboardingSettings(good)).resolves.toMatchObject({ tenants: '*' });
    await expect(readOnboardingSettings(join(dir, 'missing.json'))).rejects.toThrow(
      `onboarding settings ${join(dir, 'missing.json')}: cannot be read (ENOENT)`,
    );
    const broken = await file('broken.json', '{"tenants": [');
    await expect(readOnboardingSettings(broken)).rejects.toThrow(`onboarding settings ${broken}: not JSON`);
    const invalid = await file('invalid.json', JSON.stringify({ tenants: [], verification: {} }));
    await expect(readOnboardingSettings(invalid)).rejects.toThrow(
      `invalid onboarding settings ${invalid}: tenants needs at least one tenant (or "*")`,
    );
  });

  it('idv receiver and idv dev refuse a bad file in one line, before starting anything', async () => {
    const invalid = await file(
      'bad-timeout.json',
      JSON.stringify({ tenants: ['acme'], timeout: '5s', verification }),
    );
    const env = { IDV_DATA_DIR: join(dir, 'data') };
    for (const args of [
      ['receiver', '--onboarding', invalid],
      ['dev', '--onboarding', invalid],
    ]) {
      const io = captureIo(env);
      expect(await runCli(args, commands, io)).toBe(1);
      expect(io.err()).toBe(
        `idv: invalid onboarding settings ${invalid}: timeout must be a duration from 1m to 90d, such as 7d or 36h\n`,
      );
    }
    const io = captureIo({ ...env, IDV_ONBOARDING_FILE: join(dir, 'nowhere.json') });
    expect(await runCli(['receiver'], commands, io)).toBe(1);
    expect(io.err()).toBe(`idv: onboarding settings ${join(dir, 'nowhere.json')}: cannot be read (ENOENT)\n`);
  });
});
