import { type DataKeys } from '../../codec/data-keys';
import { type VerificationInput, type VerificationRequest } from '../domain/verification';
import { parseVerificationRequest } from './parse-request';

/**
 * Validates a request and turns it into the workflow's input: creates the verification's data
 * key and seals the person's `providerInput` under it (and `browserLanguages` with
 * `sealBrowserLanguages`, which workers of release 1.0.0 refuse), so no history holds them
 * readable. Used by
 * `IdvClient`; a parent workflow running `runVerification` calls it from an activity.
 * Throws `InvalidVerificationRequestError` (nothing created) for invalid input.
 */
export async function prepareVerificationInput(
  request: VerificationRequest,
  dataKeys: DataKeys,
  options: { sealBrowserLanguages?: boolean } = {},
): Promise<VerificationInput> {
  const { providerInput, browserLanguages, ...parsed } = parseVerificationRequest(request);
  const dataKeyId = await dataKeys.create();
  return {
    ...parsed,
    dataKeyId,
    ...(providerInput === undefined ? {} : { providerInput: await dataKeys.seal(dataKeyId, providerInput) }),
    ...(browserLanguages === undefined
      ? {}
      : {
          browserLanguages: options.sealBrowserLanguages
            ? await dataKeys.seal(dataKeyId, browserLanguages)
            : browserLanguages,
        }),
  };
}
