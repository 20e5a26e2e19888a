import { catalogue, providerToWire } from '../catalogue';
import { ok, type Route } from '../http/context';
import { notFound } from '../http/problems';
import { boolQuery } from '../http/validate';
import { environmentOf } from './scope';

/** ListProviders and GetProvider. */
export const providerRoutes: Route[] = [
  {
    method: 'GET',
    pattern: '/api/v1/providers',
    operation: 'ListProviders',
    scope: 'identity',
    handle(context) {
      environmentOf(context);
      const licensed = boolQuery(context, 'licensed');
      const providers = catalogue.filter((p) => licensed === undefined || p.licensed === licensed);
      return ok({ providers: providers.map((p) => providerToWire(p, context.baseUrl)) });
    },
  },
  {
    method: 'GET',
    pattern: '/api/v1/providers/:providerId',
    operation: 'GetProvider',
    scope: 'identity',
    handle(context) {
      environmentOf(context);
      const provider = catalogue.find((p) => p.id === context.params.providerId);
      if (!provider) notFound(`Provider '${context.params.providerId}' was not found.`);
      return ok({ provider: providerToWire(provider, context.baseUrl) });
    },
  },
];
