/** A minimal conforming billing target for end-to-end runs, with switchable defects. */
import { json, startFakeTarget, type FakeTarget } from './fake-target.ts';

export const FAKE_KEY = 'sk_fake_target_key_7f3a9c21';

export type Defect = 'drop-required-field' | 'ok-instead-of-404' | 'rate-headers-on-401';

export function startFakeBilling(defects: Defect[] = []): Promise<FakeTarget> {
  const now = '2024-05-01T10:00:00Z';
  return startFakeTarget((req, res) => {
    const url = new URL(req.url!, 'http://x');
    const authed = req.headers.authorization === `Bearer ${FAKE_KEY}`;
    if (!authed) {
      const headers: Record<string, string> = defects.includes('rate-headers-on-401')
        ? { 'x-ratelimit-limit': '60', 'x-ratelimit-remaining': '60', 'x-ratelimit-reset': '6' }
        : {};
      return json(res, 401, { error: 'unauthorized', message: 'missing or invalid API key' }, headers);
    }
    const mode = req.headers['x-fake-mode'];
    if (mode === '429')
      return json(
        res,
        429,
        { error: 'rate_limit_exceeded', message: 'GET /v0/customers: 60 per 6 s' },
        { 'retry-after': '0', 'x-ratelimit-limit': '60', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '6' },
      );
    if (mode === 'hang') return;
    if (mode === 'reset') return req.socket.destroy();
    const m = /^\/v0\/customers\/([^/]+)$/.exec(url.pathname);
    if (req.method === 'GET' && m) {
      const id = m[1];
      if (id !== 'cus_demo1' && !defects.includes('ok-instead-of-404'))
        return json(res, 404, { error: 'not_found', message: `no customer ${id}` });
      const customer: Record<string, unknown> = {
        id: id === 'cus_demo1' ? id : 'cus_demo1',
        object: 'customer',
        consumerId: 'org_consumer1',
        merchantId: 'org_merchant1',
        createdAt: now,
        updatedAt: now,
        validTaxAddress: { valid: true, message: null },
      };
      if (defects.includes('drop-required-field')) delete customer.validTaxAddress;
      return json(res, 200, customer);
    }
    if (req.method === 'DELETE' && m) {
      res.writeHead(204);
      return res.end();
    }
    if (req.method === 'GET' && url.pathname === '/v0/customers') {
      return json(
        res,
        200,
        { object: 'list', data: [], pagination: { limit: 10, offset: 0, total: 0 } },
        { 'x-ratelimit-limit': '60', 'x-ratelimit-remaining': '59', 'x-ratelimit-reset': '6' },
      );
    }
    return json(res, 404, { error: 'not_found', message: 'no such route' });
  });
}
