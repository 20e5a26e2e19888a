import { type DataKeys } from '../../codec/data-keys';
import { type VerificationInput, type VerificationRequest } from '../domain/verification';
import { parseVerificationRequest } from './parse-request';

/**
 * Validates a request and turns it into the workflow's input: creates the verification's data
 * key and seals the person's `providerInput` and `browserLanguages` under it, so no history
 * holds them readable. Used by
 * `IdvClient`; a parent workflow running `runVerification` calls it from an activity.
 * Throws `InvalidVerificationRequestError` (nothing created) for invalid input.
 */
export async function prepareVerificationInput(
  request: VerificationRequest,
  dataKeys: DataKeys,
): Promise<VerificationInput> {
  const { providerInput, browserLanguages, ...parsed } = parseVerificationRequest(request);
  const dataKeyId = await dataKeys.create();
  return {
    ...parsed,
    dataKeyId,
    ...(providerInput === undefined ? {} : { providerInput: await dataKeys.seal(dataKeyId, providerInput) }),
    ...(browserLanguages === undefined
      ? {}
      : { browserLanguages: await dataKeys.seal(dataKeyId, browserLanguages) }),
  };
}
