import { z } from 'zod';
import { type CallOptions, type HttpCore } from '../http/http-core';
import { checkInput } from '../http/input';
import { path, withQuery } from '../http/path';
import { requiredTextSchema } from './inputs';
import { getProviderResponseSchema, listProvidersResponseSchema, type Provider } from './schemas/provider';

const listProvidersQuerySchema = z.strictObject({ licensed: z.boolean().optional() });

/** Provider catalogue operations (`/api/v1/providers`). */
export class ProvidersApi {
  constructor(private readonly http: HttpCore) {}

  /** ListProviders; `licensed` filters by license status (all when omitted). */
  async list(query: { licensed?: boolean } = {}, options: CallOptions = {}): Promise<Provider[]> {
    const operation = 'ListProviders';
    const { licensed } = checkInput(operation, listProvidersQuerySchema, query);
    const answer = await this.http.request({
      operation,
      method: 'GET',
      path: withQuery('/api/v1/providers', { licensed }),
      schema: listProvidersResponseSchema,
      ...options,
    });
    return answer.providers;
  }

  /** GetProvider. */
  async get(providerId: string, options: CallOptions = {}): Promise<Provider> {
    const operation = 'GetProvider';
    const id = checkInput(operation, requiredTextSchema, providerId, 'providerId');
    const answer = await this.http.request({
      operation,
      method: 'GET',
      path: path`/api/v1/providers/${id}`,
      schema: getProviderResponseSchema,
      ...options,
    });
    return answer.provider;
  }
}
