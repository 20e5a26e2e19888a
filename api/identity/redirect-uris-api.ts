import { z } from 'zod';
import { type CallOptions, type HttpCore } from '../http/http-core';
import { checkInput } from '../http/input';
import { path, withQuery } from '../http/path';
import {
  absoluteUriSchema,
  listRedirectUrisQuerySchema,
  type ListRedirectUrisQuery,
  uuidSchema,
} from './inputs';
import {
  addRedirectUriResponseSchema,
  listRedirectUrisResponseSchema,
  type ListRedirectUrisResponse,
} from './schemas/redirect-uri';

const addRedirectUriRequestSchema = z.strictObject({ uri: absoluteUriSchema });

/** Redirect URIs of the authenticated environment (`/api/valpha/redirect-uris`). */
export class RedirectUrisApi {
  constructor(private readonly http: HttpCore) {}

  /** List (one page; see `paginateRedirectUris`). */
  async list(
    query: ListRedirectUrisQuery = {},
    options: CallOptions = {},
  ): Promise<ListRedirectUrisResponse> {
    const operation = 'ListRedirectUris';
    const q = checkInput(operation, listRedirectUrisQuerySchema, query);
    return await this.http.request({
      operation,
      method: 'GET',
      path: withQuery('/api/valpha/redirect-uris', { page: q.page, pageSize: q.pageSize }),
      schema: listRedirectUrisResponseSchema,
      ...options,
    });
  }

  /** Add; resolves to the new URI's id. */
  async add(uri: string, options: CallOptions = {}): Promise<string> {
    const operation = 'AddRedirectUri';
    const body = checkInput(operation, addRedirectUriRequestSchema, { uri });
    const answer = await this.http.request({
      operation,
      method: 'POST',
      path: '/api/valpha/redirect-uris',
      body,
      schema: addRedirectUriResponseSchema,
      ...options,
    });
    return answer.id;
  }

  /** Delete. */
  async delete(id: string, options: CallOptions = {}): Promise<void> {
    const operation = 'DeleteRedirectUri';
    const uriId = checkInput(operation, uuidSchema, id, 'id');
    await this.http.request({
      operation,
      method: 'DELETE',
      path: path`/api/valpha/redirect-uris/${uriId}`,
      ...options,
    });
  }
}
