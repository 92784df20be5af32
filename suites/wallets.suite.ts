/**
 * Wallets (Endpoints > Wallets): the auto top-up configuration.
 * Every scenario works on resources of its own: all run concurrently.
 */
import { Decimal } from 'decimal.js';
import { scenario } from '../src/engine/scenario.ts';
import { concurrent, keepsUnsent, DECIMAL, requireAccepted, enc } from './support.ts';

scenario(
  ['WALLETS.AUTO_TOPUP.SHAPE', 'WALLETS.AUTO_TOPUP.PERIOD_DAY'],
  'PATCH /v0/wallets/{id}/autoTopupConfig answers the autoTopupConfig with the values given',
  async (t) => {
    const { walletId } = await t.fixture((f) => f.wallet());
    const sent = {
      amount: '25.00',
      threshold: '5.50',
      paymentMethod: 'pm_conform_card',
      limit: { amount: 100, period: 'day' },
    };
    const res = await t.http.patch(`/v0/wallets/${enc(walletId)}/autoTopupConfig`, sent);
    t.softExpectRule(
      'WALLETS.AUTO_TOPUP.PERIOD_DAY',
      res.status !== undefined && res.status >= 200 && res.status < 300,
      `limit.period day is accepted (got ${res.status ?? res.transportError})`,
      res,
    );
    const c = requireAccepted(t, res, 'PATCH autoTopupConfig with limit.period day');
    t.expectRule(
      'WALLETS.AUTO_TOPUP.SHAPE',
      c.object === 'autoTopupConfig',
      `object is autoTopupConfig (got ${JSON.stringify(c.object)})`,
      res,
    );
    // The document types these as strings only: the value sent, or the same decimal written otherwise.
    const decEq = (v: unknown, want: string) =>
      typeof v === 'string' && (v === want || (DECIMAL.test(v) && new Decimal(v).equals(want)));
    t.expectRule(
      'WALLETS.AUTO_TOPUP.SHAPE',
      decEq(c.amount, sent.amount) && decEq(c.threshold, sent.threshold),
      `amount and threshold are the decimals sent (got ${JSON.stringify([c.amount, c.threshold])})`,
      res,
    );
    t.expectRule(
      'WALLETS.AUTO_TOPUP.SHAPE',
      c.paymentMethod === sent.paymentMethod,
      `paymentMethod is the one sent (got ${JSON.stringify(c.paymentMethod)})`,
      res,
    );
    const l = c.limit;
    t.expectRule(
      'WALLETS.AUTO_TOPUP.SHAPE',
      !!l && typeof l === 'object' && typeof l.amount === 'number' && typeof l.period === 'string',
      `limit is {amount: number, period: string} (got ${JSON.stringify(l)})`,
      res,
    );
    t.expectRule(
      'WALLETS.AUTO_TOPUP.PERIOD_DAY',
      l.amount === 100 && l.period === 'day',
      `limit holds amount 100 and period day (got ${JSON.stringify(l)})`,
      res,
    );
  },
  concurrent,
);

scenario(
  ['WALLETS.AUTO_TOPUP.PARTIAL'],
  'PATCH /v0/wallets/{id}/autoTopupConfig changes only the fields provided',
  async (t) => {
    const { walletId } = await t.fixture((f) => f.wallet());
    const first = {
      amount: '25.00',
      threshold: '5.50',
      paymentMethod: 'pm_conform_card',
      limit: { amount: 100, period: 'day' },
    };
    const send = (body: Record<string, unknown>) => t.http.patch(`/v0/wallets/${enc(walletId)}/autoTopupConfig`, body);
    await keepsUnsent(
      t,
      'WALLETS.AUTO_TOPUP.PARTIAL',
      send,
      first,
      [{ threshold: '6.00' }, { amount: '30.00' }],
      ['amount', 'threshold', 'paymentMethod', 'limit'],
    );
  },
  concurrent,
);

scenario(
  ['STATUS.404.UNKNOWN_RESOURCE'],
  'the auto top-up configuration of an unknown wallet gets 404',
  async (t) => {
    const res = await t.http.patch('/v0/wallets/wal_conform0unknown/autoTopupConfig', { amount: '10.00' });
    t.expectStatus('STATUS.404.UNKNOWN_RESOURCE', res, 404);
  },
  concurrent,
);
