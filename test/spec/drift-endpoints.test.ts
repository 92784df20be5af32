/**
 * The spec must not drift from the interface document: every endpoint heading and every
 * rate-limited endpoint it names exists in spec/openapi.yaml with that method.
 */
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, test } from 'vitest';
import { loadSpec } from '../../src/contract/index.ts';

const DOC_PATH = fileURLToPath(new URL('../../../shared/source/billing-service-interface.md', import.meta.url));
const present = existsSync(DOC_PATH);
const doc = present ? readFileSync(DOC_PATH, 'utf8') : '';
const skipNote = present ? '' : ` (SKIPPED: interface document not found at ${DOC_PATH})`;

/** Path parameters compared by position only: `{ruleId}`, `<crm_provider>` and `{id}` are all one slot. */
function normalisePath(path: string): string {
  return path.replace(/\{[^}]+\}|<[^>]+>/g, '{}');
}

/** `**METHOD /path**` endpoint headings of the document's Endpoints section. */
function endpointHeadings(text: string): string[] {
  return [...text.matchAll(/\*\*(GET|POST|PUT|PATCH|DELETE) (\/[^*\s]+)\*\*/g)].map((m) => `${m[1]} ${m[2]}`);
}

/** The endpoints named under "Rate-limited endpoints" and in the Limits table. */
function rateLimitedEndpoints(text: string): { listed: string[]; table: string[] } {
  const section = text.split(/^### Rate-limited endpoints/m)[1]?.split(/^#{2,3} /m)[0] ?? '';
  const listed = [...section.matchAll(/`(GET|POST|PUT|PATCH|DELETE) (\/[^`]+)`/g)].map((m) => `${m[1]} ${m[2]}`);
  const limits = text.split(/^## Limits/m)[1]?.split(/^## /m)[0] ?? '';
  const table = [...limits.matchAll(/^\| (GET|POST|PUT|PATCH|DELETE) (\/\S+) \|/gm)].map((m) => `${m[1]} ${m[2]}`);
  return { listed, table };
}

describe(`drift: spec/openapi.yaml against the interface document${skipNote}`, () => {
  test('the helpers read headings and normalise parameters', () => {
    expect(endpointHeadings('x **PATCH /v0/sourceRules/{ruleId}** — y\n**GET /v0/alerts** z')).toEqual([
      'PATCH /v0/sourceRules/{ruleId}',
      'GET /v0/alerts',
    ]);
    expect(normalisePath('/v0/integrations/<crm_provider>/accounts')).toBe(
      normalisePath('/v0/integrations/{crmProvider}/accounts'),
    );
    expect(normalisePath('/v0/sourceRules/{ruleId}')).toBe('/v0/sourceRules/{}');
  });

  test.skipIf(!present)(
    `every **METHOD /path** endpoint heading exists in the spec with that method${skipNote}`,
    async () => {
      const spec = await loadSpec();
      const have = new Set([...spec.operations.values()].map((o) => `${o.method} ${normalisePath(o.pathTemplate)}`));
      const headings = endpointHeadings(doc);
      expect(headings.length).toBeGreaterThanOrEqual(20);
      expect(
        headings.filter((h) => {
          const [method, path] = h.split(' ');
          return !have.has(`${method} ${normalisePath(path)}`);
        }),
      ).toEqual([]);
    },
  );

  test.skipIf(!present)(`the six rate-limited endpoints exist and are marked rate-limited${skipNote}`, async () => {
    const spec = await loadSpec();
    const { listed, table } = rateLimitedEndpoints(doc);
    expect(listed).toHaveLength(6);
    expect(table.map(normalisePath).sort()).toEqual(listed.map(normalisePath).sort());
    const limited = new Set(
      [...spec.operations.values()]
        .filter((o) => o.rateLimit)
        .map((o) => `${o.method} ${normalisePath(o.pathTemplate)}`),
    );
    expect(
      listed.filter((e) => {
        const [method, path] = e.split(' ');
        return !limited.has(`${method} ${normalisePath(path)}`);
      }),
    ).toEqual([]);
  });

  test.skipIf(!present)(`the Limits table's figures match each operation's x-rate-limit${skipNote}`, async () => {
    const spec = await loadSpec();
    const limits = doc.split(/^## Limits/m)[1]?.split(/^## /m)[0] ?? '';
    const rows = [
      ...limits.matchAll(
        /^\| (GET|POST|PATCH|DELETE) (\/\S+) \| (\d+) per (\d+ seconds|second|minute) \| (Merchant|Subscription) \|/gm,
      ),
    ];
    expect(rows).toHaveLength(6);
    for (const [, method, path, limit, per, bucket] of rows) {
      const window = per === 'second' ? 1 : per === 'minute' ? 60 : Number(per.split(' ')[0]);
      const op = [...spec.operations.values()].find(
        (o) => o.method === method && normalisePath(o.pathTemplate) === normalisePath(path),
      );
      expect(op?.rateLimit, `${method} ${path}`).toEqual({
        limit: Number(limit),
        windowSeconds: window,
        bucket: bucket.toLowerCase(),
      });
    }
  });
});
