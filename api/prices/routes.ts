// Model prices (decisions §6): the shipped table with the operator's overrides, edited by
// admins, and the models seen without a price. New prices apply to events ingested from then
// on (within a few seconds); stored events keep the price they were computed with.
import { queryInteger, readBody, compile } from '../../lib/http/body.ts';
import { notFound } from '../../lib/errors.ts';
import type { Route } from '../../lib/http/types.ts';
import { listUnpricedModels } from '../../lib/analytics/cost-reads.ts';
import { CUSTOM_PROVIDER, deletePriceOverride, listPriceOverrides, upsertPriceOverride } from '../../lib/pricing/price-overrides.ts';
import { createPricer, PRICE_TABLE_AS_OF } from '../../lib/pricing/pricing.ts';
import { PriceOverrideSchema } from '../../schemas/costs-api.ts';
import type { ApiContext } from '../context.ts';

const overrideValidator = compile(PriceOverrideSchema);

export function priceRoutes(ctx: ApiContext): Route[] {
  return [
    {
      method: 'GET',
      pattern: '/api/v1/prices',
      async handler(request) {
        await ctx.guard.user(request);
        const overrides = await listPriceOverrides(ctx.db);
        const overridden = new Set(overrides.map((o) => o.model));
        const models = createPricer(overrides)
          .entries()
          .map((entry) => ({ ...entry, source: overridden.has(entry.model) ? 'override' : 'table' }));
        return { status: 200, body: { as_of: PRICE_TABLE_AS_OF, unit: 'USD per million tokens', models } };
      },
    },
    {
      method: 'PUT',
      pattern: '/api/v1/prices/:model',
      async handler(request) {
        await ctx.guard.admin(request);
        const body = readBody(request, overrideValidator);
        const model = (request.params.model ?? '').toLowerCase();
        const entry = { model, provider: (body.provider ?? CUSTOM_PROVIDER).toLowerCase(), input: body.input, output: body.output, cached_input: body.cached_input ?? null };
        const created = await upsertPriceOverride(ctx.db, entry);
        return { status: created ? 201 : 200, body: { ...entry, source: 'override' } };
      },
    },
    {
      method: 'DELETE',
      pattern: '/api/v1/prices/:model',
      async handler(request) {
        await ctx.guard.admin(request);
        if (!(await deletePriceOverride(ctx.db, request.params.model ?? ''))) throw notFound('The price override');
        return { status: 204 };
      },
    },
    {
      method: 'GET',
      pattern: '/api/v1/costs/unpriced-models',
      async handler(request) {
        await ctx.guard.user(request);
        const days = queryInteger(request, 'days', 30, 1, 365);
        return { status: 200, body: await listUnpricedModels(ctx.analytics, { days, now: ctx.now() }) };
      },
    },
  ];
}
