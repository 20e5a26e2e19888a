import { ok, type Route } from '../http/context';
import { forbidden, invalid, notFound } from '../http/problems';
import { intQuery, isAbsoluteUri, jsonBody, requiredString, uuidParam } from '../http/validate';
import { environmentOf } from './scope';

const MAX_INT32 = 2_147_483_647;

/** List, Add and Delete of redirect URIs, per environment (`/api/valpha`). */
export const redirectUriRoutes: Route[] = [
  {
    method: 'GET',
    pattern: '/api/valpha/redirect-uris',
    operation: 'ListRedirectUris',
    scope: 'identity',
    handle(context) {
      const uris = context.store.redirectUris.get(environmentOf(context)) ?? [];
      const page = intQuery(context, 'page', { min: 1, max: MAX_INT32 }, 1);
      const pageSize = intQuery(context, 'pageSize', { min: 1, max: 100 }, 20);
      const start = (page - 1) * pageSize;
      return ok({
        uris: uris.slice(start, start + pageSize).map(({ id, uri }) => ({ id, uri })),
        more: start + pageSize < uris.length,
      });
    },
  },
  {
    method: 'POST',
    pattern: '/api/valpha/redirect-uris',
    operation: 'AddRedirectUri',
    scope: 'identity',
    handle(context) {
      const environmentId = environmentOf(context);
      const body = jsonBody(context);
      const errors: Record<string, string[]> = {};
      const uri = requiredString(body, 'uri', errors);
      if (uri && !isAbsoluteUri(uri)) errors.uri = ['The URI must be absolute, not relative.'];
      if (Object.keys(errors).length > 0) invalid(errors);
      const record = { id: context.store.random.uuid(), uri, createdMs: context.store.clock.now() };
      context.store.redirectUris.get(environmentId)?.push(record);
      return ok({ id: record.id }, 201);
    },
  },
  {
    method: 'DELETE',
    pattern: '/api/valpha/redirect-uris/:id',
    operation: 'DeleteRedirectUri',
    scope: 'identity',
    handle(context) {
      const environmentId = environmentOf(context);
      const id = uuidParam(context, 'id');
      const uris = context.store.redirectUris.get(environmentId) ?? [];
      const index = uris.findIndex((u) => u.id === id);
      if (index < 0) {
        const elsewhere = [...context.store.redirectUris.values()].some((list) =>
          list.some((u) => u.id === id),
        );
        if (elsewhere) forbidden('The redirect URI belongs to another environment.');
        notFound(`Redirect URI '${id}' was not found.`);
      }
      uris.splice(index, 1);
      return { status: 204 };
    },
  },
];
