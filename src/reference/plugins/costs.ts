/** Costs: the costs report (rate-limited). */
import type { ResourcePlugin } from '../http/plugin.ts';
import { merchant } from './common.ts';

export const costsPlugin: ResourcePlugin = {
  name: 'costs',
  async register(app) {
    // The hook has counted the request; the query and the answer are the reference's
    // choice (x-reference-choice in spec/openapi.yaml). No cost source exists in the
    // reference: the report is empty but well-formed.
    app.get('/v0/costs/report', { config: { operationId: 'getCostsReport' } }, async (request) => {
      const q = request.query as { productId?: string; from?: string; to?: string };
      return {
        object: 'costs_report',
        merchantId: merchant(request),
        productId: q.productId ?? null,
        from: q.from ?? null,
        to: q.to ?? null,
        currency: 'USD',
        total: '0.00',
        data: [],
      };
    });
  },
};
