/**
 * A walk of a rate-limited list spends at most its budget of the bucket: a list longer than
 * that many pages of the generated size is read in larger pages (up to the largest the
 * contract allows), and the walk still reaches every element.
 */
import { describe, expect, test } from 'vitest';
import { loadSpec, loadRules, limitsTable } from '../../../src/contract/index.ts';
import { walkList, type ListTarget } from '../../../src/engine/model/lists.ts';
import { walkBudget } from '../../../src/engine/model/resources.ts';
import type { ModelHttp } from '../../../src/engine/model/state.ts';
import { ex } from '../helpers/exchange.ts';

/** A list of `n` elements, paged as asked; records the paths it was asked for. */
function list(n: number) {
  const asked: string[] = [];
  const http = {
    async send(method: string, path: string) {
      asked.push(path);
      const q = new URLSearchParams(path.split('?')[1]);
      const limit = Number(q.get('limit'));
      const offset = Number(q.get('offset'));
      const data = Array.from({ length: Math.max(0, Math.min(limit, n - offset)) }, (_, i) => ({
        id: `cus_${offset + i}`,
      }));
      return ex(method, path, 200, { object: 'list', data, pagination: { limit, offset, total: n } });
    },
  } as unknown as ModelHttp;
  return { http, asked };
}

const target = (pageSize: number, budget?: ListTarget['budget']): ListTarget => ({
  label: 'GET /v0/customers',
  path: '/v0/customers',
  pageSize,
  maxPages: 20,
  ...(budget ? { budget } : {}),
});

describe('list walks on a rate-limited list', () => {
  test('without a budget, pages of 1 read 19 elements in 19 pages (and 20 pages at most)', async () => {
    const l = list(19);
    const out = await walkList(l.http, target(1));
    expect('walk' in out && out.walk.elements.length).toBe(19);
    expect(l.asked.length).toBe(20);
  });

  test('with a budget of 4 pages, the walk reads 19 elements in pages of 5 after its first page', async () => {
    const l = list(19);
    const out = await walkList(l.http, target(1, { pages: 4, maxPageSize: 100 }));
    expect('walk' in out && out.walk.complete && out.walk.elements.length).toBe(19);
    expect(l.asked).toEqual([
      '/v0/customers?limit=1&offset=0',
      '/v0/customers?limit=5&offset=0',
      '/v0/customers?limit=5&offset=5',
      '/v0/customers?limit=5&offset=10',
      '/v0/customers?limit=5&offset=15',
    ]);
  });

  test('a list that fits the budget is walked at the generated size; pages never exceed the largest allowed', async () => {
    const small = list(3);
    await walkList(small.http, target(1, { pages: 4, maxPageSize: 100 }));
    expect(small.asked.every((p) => p.includes('limit=1&'))).toBe(true);
    const long = list(1000);
    const out = await walkList(long.http, target(1, { pages: 4, maxPageSize: 100 }));
    expect(long.asked.slice(1).every((p) => p.includes('limit=100&'))).toBe(true);
    expect('walk' in out && out.walk.elements.length).toBe(1000);
  });

  test('the budget comes from the rules and the spec: GET /v0/customers (60 per 6 s) walks in 4 pages of at most 100', async () => {
    const spec = await loadSpec();
    const limits = limitsTable(await loadRules());
    expect(walkBudget(spec.operation('listCustomers')!, limits.listCustomers)).toEqual({ pages: 4, maxPageSize: 100 });
    expect(walkBudget(spec.operation('listCustomers')!, undefined)).toBeUndefined();
  });
});
