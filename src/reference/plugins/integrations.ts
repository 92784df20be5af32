/** Merchant integrations: accounts of a connected CRM (rate-limited). */
import type { ResourcePlugin } from '../http/plugin.ts';
import { listEnvelope } from './common.ts';

export const integrationsPlugin: ResourcePlugin = {
  name: 'integrations',
  async register(app) {
    // The hook has counted the request; the answer is the reference's choice
    // (x-reference-choice in spec/openapi.yaml). No CRM is connected in the sandbox.
    app.get('/v0/integrations/:crmProvider/accounts', { config: { operationId: 'listCrmAccounts' } }, async () =>
      listEnvelope([], 10, 0, 0),
    );
  },
};
