// Drift guard: rules.yaml must follow the interface document. The project never copies the
// document; where ../shared/source/ is absent these tests are skipped and their names say so.
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, test } from 'vitest';
import { loadRules, type RateLimitParams } from '../../src/contract/rules.ts';

const docPath = fileURLToPath(new URL('../../../shared/source/billing-service-interface.md', import.meta.url));
const exists = existsSync(docPath);
const text = exists ? readFileSync(docPath, 'utf8') : '';

/** Lines of one `## Heading` section, up to the next `## `. */
function section(heading: string): string[] {
  const lines = text.split('\n');
  const start = lines.findIndex((l) => l.trim() === `## ${heading}`);
  if (start < 0) return [];
  const end = lines.findIndex((l, i) => i > start && /^## /.test(l));
  return lines.slice(start + 1, end < 0 ? undefined : end);
}

/** Data rows of the first markdown table whose header row starts with `firstHeader`. */
function tableRows(lines: string[], firstHeader: string): string[][] {
  const cells = (l: string) =>
    l
      .trim()
      .replace(/^\||\|$/g, '')
      .split('|')
      .map((c) => c.trim());
  const start = lines.findIndex((l) => l.trim().startsWith('|') && cells(l)[0] === firstHeader);
  if (start < 0) return [];
  const rows: string[][] = [];
  for (const l of lines.slice(start + 2)) {
    if (!l.trim().startsWith('|')) break;
    rows.push(cells(l));
  }
  return rows;
}

const UNIT_SECONDS: Record<string, number> = {
  second: 1,
  seconds: 1,
  minute: 60,
  minutes: 60,
  hour: 3600,
  hours: 3600,
};

/** "60 per 6 seconds" → {limit: 60, windowSeconds: 6}; "2 per second" → {2, 1}. */
function parseLimit(cell: string): { limit: number; windowSeconds: number } {
  const m = /^(\d+)\s+per\s+(?:(\d+)\s+)?(second|seconds|minute|minutes|hour|hours)$/i.exec(cell);
  if (!m) throw new Error(`unreadable limit cell: ${cell}`);
  return { limit: Number(m[1]), windowSeconds: Number(m[2] ?? 1) * UNIT_SECONDS[m[3].toLowerCase()] };
}

/** Path templates compared without parameter names: <crm_provider> and {crmProvider} alike. */
const template = (path: string) => path.replace(/<[^>]+>|\{[^}]+\}/g, '{}');

const why = 'skipped when ../shared/source/billing-service-interface.md is absent';

describe('rules.yaml follows the interface document', () => {
  test.skipIf(!exists)(
    `every row of the Limits table is a RATE.*.LIMIT rule with matching limit, window, bucket and operation (${why})`,
    async () => {
      const rows = tableRows(section('Limits'), 'Endpoint');
      expect(rows.length, 'rows of the Limits table').toBeGreaterThan(0);
      const { rules } = await loadRules();
      const limitRules = rules.filter((r) => /^RATE\.[A-Z0-9_]+\.LIMIT$/.test(r.id));
      for (const [endpoint, limitCell, bucketCell] of rows) {
        const [method, path] = endpoint.split(/\s+/);
        const rule = limitRules.find((r) => {
          const p = r.params as unknown as RateLimitParams;
          return p?.method?.toUpperCase() === method.toUpperCase() && template(p.path) === template(path);
        });
        expect(rule, `a RATE.*.LIMIT rule for ${endpoint}`).toBeDefined();
        const p = rule!.params as unknown as RateLimitParams;
        expect({ limit: p.limit, windowSeconds: p.windowSeconds }, endpoint).toEqual(parseLimit(limitCell));
        expect(p.bucket, endpoint).toBe(bucketCell.toLowerCase());
        expect(rule!.operations, endpoint).toHaveLength(1);
        const bucketRule = rules.find((r) => r.id === rule!.id.replace(/\.LIMIT$/, '.BUCKET'));
        expect(bucketRule?.params?.bucket, `${rule!.id} bucket rule`).toBe(bucketCell.toLowerCase());
      }
      expect(limitRules).toHaveLength(rows.length);
    },
  );

  test.skipIf(!exists)(`every row of "States and transitions" has its STATE rule (${why})`, async () => {
    const rows = tableRows(section('States and transitions'), 'Resource');
    expect(rows.length).toBeGreaterThan(0);
    const { rules } = await loadRules();
    const stateRules = rules.filter((r) => r.family === 'STATE' && r.section === 'States and transitions');
    expect(stateRules).toHaveLength(rows.length);
  });

  test.skipIf(!exists)(`every rule's section is a heading of the document (${why})`, async () => {
    const headings = new Set<string>();
    let top = '';
    for (const line of text.split('\n')) {
      const h2 = /^## (.+)$/.exec(line);
      const h3 = /^### (.+)$/.exec(line);
      if (h2) headings.add((top = h2[1].trim()));
      else if (h3) headings.add(`${top} > ${h3[1].trim()}`);
    }
    const { rules } = await loadRules();
    const unknown = rules.filter((r) => !headings.has(r.section)).map((r) => `${r.id}: ${r.section}`);
    expect(unknown).toEqual([]);
  });

  test.skipIf(!exists)(`the Limits section's other constants appear in rule params (${why})`, async () => {
    const { rules } = await loadRules();
    const params = (id: string) => rules.find((r) => r.id === id)?.params ?? {};
    const limits = section('Limits').join('\n');
    expect(limits).toMatch(/externalId` max length 255/);
    expect(params('CUSTOMERS.EXTERNAL_ID.MAX_LENGTH')).toMatchObject({ maxLength: 255 });
    expect(limits).toMatch(/taxRates` 0\.\.100/);
    expect(params('CUSTOMERS.TAX_RATES.RANGE')).toMatchObject({ minimum: 0, maximum: 100 });
    expect(limits).toMatch(/`limit` 1\.\.100 \(default 10\)/);
    expect(params('ALERTS.LIST.LIMIT_RANGE')).toMatchObject({ minimum: 1, maximum: 100 });
    expect(params('ALERTS.LIST.LIMIT_DEFAULT')).toMatchObject({ default: 10 });
    expect(limits).toMatch(/`targetVersionNumber` 1\.\.2147483647/);
    expect(params('MIGRATION.400.TARGET_RANGE')).toMatchObject({ minimum: 1, maximum: 2147483647 });
    expect(limits).toMatch(/stop after five attempts/);
    expect(params('RETRY.CLIENT.MAX_ATTEMPTS')).toMatchObject({ maxAttempts: 5 });
  });
});
