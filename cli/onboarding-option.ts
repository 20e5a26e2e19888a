import {
  type OnboardingSettings,
  OnboardingSettingsError,
} from '../agent-platform/domain/onboarding-settings';
import { readOnboardingSettings } from '../workers/receiver/onboarding-settings-file';
import { type CommandArgs, CommandFailedError, type OptionSpec } from './command';
import { stringOption } from './parse-values';

/** `--onboarding FILE` of the commands that run a receiver. */
export const onboardingOption: OptionSpec = {
  type: 'string',
  valueName: 'FILE',
  description:
    'onboard the connections of these tenants (JSON settings: tenants, waitFor, timeout, verification; default $IDV_ONBOARDING_FILE)',
};

/**
 * The receiver's onboarding settings: `--onboarding FILE`, else `IDV_ONBOARDING_FILE`, else none.
 * A bad file is one line naming it and each problem.
 */
export async function commandOnboardingSettings(
  values: CommandArgs['values'],
  configured: string | undefined,
): Promise<OnboardingSettings | undefined> {
  const path = stringOption(values, 'onboarding') ?? configured;
  if (path === undefined) return undefined;
  try {
    return await readOnboardingSettings(path);
  } catch (error) {
    if (error instanceof OnboardingSettingsError) throw new CommandFailedError(error.message);
    throw error;
  }
}
