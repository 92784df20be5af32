/**
 * unsentFields: the one judgement of every "a PATCH changes only what it is sent" rule, used by
 * the suites, the state model and the passive judge. Its fields come from the rule's params.
 */
import { describe, expect, test } from 'vitest';
import { loadRules } from '../../src/contract/rules.ts';
import { keptFields, unsentFields } from '../../src/engine/predicates.ts';

const rules = await loadRules();
const judged = (ruleId: string, sent: object, before: object, after: object) =>
  unsentFields(rules, ruleId, sent as never, before as never, after as never).map((u) => [u.field, u.kept]);

describe('unsentFields', () => {
  test('judges each kept field not sent and shown before; a sent or never-shown field judges nothing', () => {
    const before = { taxId: 'DE1', externalId: 'x', taxRates: { a: '7' } };
    expect(judged('CUSTOMERS.UPDATE.PARTIAL', { taxId: 'DE2' }, before, { ...before, taxId: 'DE2' })).toEqual([
      ['externalId', true],
      ['taxRates', true],
    ]);
    expect(judged('CUSTOMERS.UPDATE.PARTIAL', { taxId: 'DE2' }, before, { taxId: 'DE2', taxRates: {} })).toEqual([
      ['externalId', false],
      ['taxRates', false],
    ]);
  });

  test('object key order does not matter; null and absent are alike', () => {
    const before = { config: { a: 1, b: 2 }, recipients: null };
    expect(judged('ALERTS.UPDATE.PARTIAL', { enabled: false }, before, { config: { b: 2, a: 1 } })).toEqual([
      ['config', true],
      ['recipients', true],
    ]);
  });

  test('archived is answered as archivedAt: kept when set or unset alike, whatever its time', () => {
    const at = (archivedAt: string | null) => ({ name: 'n', archivedAt });
    const rule = 'ITEMS.UPDATE.PARTIAL';
    expect(judged(rule, { name: 'm' }, at('2024-01-01T00:00:00Z'), at('2024-02-01T00:00:00Z'))).toEqual([
      ['archivedAt', true],
    ]);
    expect(judged(rule, { name: 'm' }, at('2024-01-01T00:00:00Z'), at(null))).toEqual([['archivedAt', false]]);
    expect(judged(rule, { archived: false }, at('2024-01-01T00:00:00Z'), at(null))).toEqual([['name', true]]);
  });

  test('flags inside notificationSettings are judged only on an update sending notificationSettings', () => {
    const flags = (invoicePaid: boolean) => ({
      notificationSettings: { invoiceIssued: true, invoicePaid, renewalReminder: true },
    });
    const rule = 'CUSTOMERS.NOTIFICATIONS.PARTIAL';
    expect(judged(rule, { taxId: 'x' }, flags(false), flags(true))).toEqual([]);
    expect(
      judged(rule, { notificationSettings: { invoicePaid: true } }, flags(false), {
        notificationSettings: { invoiceIssued: false, invoicePaid: true, renewalReminder: true },
      }),
    ).toEqual([
      ['invoiceIssued', false],
      ['renewalReminder', true],
    ]);
  });

  test("a source rule's conditions compare on the properties the document shows", () => {
    const rule = 'SOURCE_RULES.UPDATE.PARTIAL#keeps-others';
    const cond = (extra: string) => ({ conditions: [{ type: 'amount', operator: 'gte', value: '1.00', extra }] });
    expect(judged(rule, { name: 'n' }, cond('a'), cond('b'))).toEqual([['conditions', true]]);
    const changed = { conditions: [{ type: 'amount', operator: 'lte', value: '1.00' }] };
    expect(judged(rule, { name: 'n' }, cond('a'), changed)).toEqual([['conditions', false]]);
  });

  test('the fields come from the rule; a rule stating none is an error', () => {
    expect(keptFields(rules, 'WALLETS.AUTO_TOPUP.PARTIAL')).toEqual(['amount', 'threshold', 'paymentMethod', 'limit']);
    expect(() => keptFields(rules, 'CUSTOMERS.GET.BY_ID')).toThrow(/params|keeps/);
  });
});
