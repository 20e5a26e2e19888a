import { readFile } from 'node:fs/promises';
import {
  type OnboardingSettings,
  OnboardingSettingsError,
  parseOnboardingSettings,
} from '../../agent-platform/domain/onboarding-settings';

/**
 * Reads the onboarding settings file (`--onboarding FILE`, `IDV_ONBOARDING_FILE`). Throws
 * {@link OnboardingSettingsError} whose one-line message names the file and what is wrong with it.
 */
export async function readOnboardingSettings(path: string): Promise<OnboardingSettings> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'unreadable';
    throw new OnboardingSettingsError(`onboarding settings ${path}: cannot be read (${code})`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new OnboardingSettingsError(`onboarding settings ${path}: not JSON`);
  }
  try {
    return parseOnboardingSettings(value);
  } catch (error) {
    if (error instanceof OnboardingSettingsError)
      throw new OnboardingSettingsError(
        `invalid onboarding settings ${path}: ${error.problems.join('; ')}`,
        error.problems,
      );
    throw error;
  }
}
