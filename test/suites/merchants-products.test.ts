/**
 * The merchants-products area's suites (merchants, products, prices, source-rules, wallets) pass
 * against the bundled reference and fail, citing the right rules, when a fault proxy in
 * front of it breaks a merchants, products, prices, source rules or wallets rule.
 */
import { describe, expect, test } from 'vitest';
import type { ProxyRequest } from '../../src/faults/fault-proxy.ts';
import { expectAllPassed, isPatch, useInProcessRun, type Json } from './helpers/in-process-run.ts';

const { run, expectFailed } = useInProcessRun(['merchants', 'products', 'prices', 'source-rules', 'wallets']);

const ok = (status: number) => status >= 200 && status < 300;
const isGetPrice = (req: ProxyRequest) => req.method === 'GET' && req.path.startsWith('/v0/prices/');

describe('merchants-products suites', () => {
  test('passes against the unaltered reference: no failure, no skip', async () => {
    expectAllPassed(await run());
  });

  test('fails on a product created without description, a price read without merchantId, a source rule PATCH resetting other fields, a string limit.amount, a merchant losing its phone', async () => {
    const results = await run({
      name: 'description-optional, price-without-merchantId, rule-patch-replaces, limit-amount-string, merchant-phone-lost',
      onRequest(req, ctx) {
        const b = req.json as Json;
        if (
          req.method === 'POST' &&
          req.path === '/v0/products' &&
          b &&
          typeof b.name === 'string' &&
          typeof b.merchantId === 'string' &&
          b.description === undefined
        ) {
          b.description = 'filled in by the proxy';
          ctx.applied();
        }
        if (isPatch(req, '/v0/sourceRules/') && b && Object.keys(b).length) {
          // A target that replaces the rule instead of patching it: omitted fields fall back to defaults.
          req.json = { description: '', enabled: true, order: 0, ...b };
          ctx.applied();
        }
      },
      onResponse(req, res, ctx) {
        const b = res.json as Json;
        if (!ok(res.status) || !b) return;
        if (isGetPrice(req)) delete b.merchantId;
        else if (isPatch(req, '/v0/wallets/') && b.limit) b.limit.amount = String(b.limit.amount);
        else if (req.method === 'GET' && req.path.startsWith('/v0/merchants/')) delete b.phone;
        else return;
        ctx.applied();
      },
    });
    expectFailed(results, [
      'PRODUCTS.CREATE.REQUIRED',
      'VALIDATION.REQUIRED.400',
      'PRICES.MERCHANT_ID.SINGLE_READ',
      'SOURCE_RULES.UPDATE.PARTIAL',
      'WALLETS.AUTO_TOPUP.SHAPE',
      'MERCHANTS.GET.ROUND_TRIP',
    ]);
  });

  test('fails on a closed last volume tier, an unknown legacy model, a merchant address with a number, a product without its metadata, a valid top-up refused', async () => {
    const results = await run({
      name: 'last-tier-closed, legacy-model-renamed, address-number, product-metadata-dropped, topup-refused',
      onResponse(req, res, ctx) {
        if (isPatch(req, '/v0/wallets/') && ok(res.status)) {
          res.status = 400;
          res.json = {
            error: 'validation_error',
            message: 'Invalid request',
            errors: [{ field: 'limit.period', message: 'unsupported' }],
          };
          ctx.applied();
          return;
        }
        const b = res.json as Json;
        if (!ok(res.status) || !b) return;
        if (isGetPrice(req) && b.model === 'volume') b.properties.tiers.at(-1).upTo = '1000000';
        else if (isGetPrice(req) && (b.model === 'dynamic' || b.model === 'percentage')) b.model = 'tiered';
        else if (req.method === 'POST' && req.path === '/v0/merchants' && b.address) b.address.zipCode = 10115;
        else if (
          req.method === 'POST' &&
          req.path === '/v0/products' &&
          String(b.metadata?.conform) === 'products-suite'
        )
          b.metadata = {};
        else return;
        ctx.applied();
      },
    });
    expectFailed(results, [
      'PRICES.VOLUME.LAST_TIER_OPEN',
      'PRICES.MODEL.ENUM',
      'MERCHANTS.CREATE.OBJECT',
      'PRODUCTS.CREATE.OBJECT',
      'VALIDATION.VALID_REQUEST.NOT_400',
    ]);
    expect(results.find((r) => r.title.startsWith('a standard fee price'))?.state).toBe('passed');
  });
});
