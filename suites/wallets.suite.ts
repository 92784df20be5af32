/**
 * Wallets (Endpoints > Wallets): the auto top-up configuration.
 * Every scenario works on resources of its own: all run concurrently.
 */
import { scenario } from '../src/engine/scenario/index.ts';
import { idPrefix, loadSpec } from '../src/contract/index.ts';
import { concurrent, updateInTurn, requireAccepted } from './support.ts';

const spec = await loadSpec();
const topupPath = (id: string) => spec.pathFor('updateAutoTopupConfig', { id });

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
    const res = await t.http.patch(topupPath(walletId), sent);
    t.softExpectRule(
      'WALLETS.AUTO_TOPUP.PERIOD_DAY#accepted',
      res.status !== undefined && res.status >= 200 && res.status < 300,
      `limit.period day is accepted (got ${res.status ?? res.transportError})`,
      res,
    );
    // The autoTopupConfig answered and the values it holds, limit.period day included (#kept), are
    // the auto-topup-updated check's (src/engine/checks/updates.ts).
    requireAccepted(t, res, 'PATCH autoTopupConfig with limit.period day');
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
    const send = (body: Record<string, unknown>) => t.http.patch(topupPath(walletId), body);
    await updateInTurn(t, 'WALLETS.AUTO_TOPUP.PARTIAL', send, first, [{ threshold: '6.00' }, { amount: '30.00' }]);
  },
  concurrent,
);

scenario(
  ['STATUS.404.UNKNOWN_RESOURCE'],
  'the auto top-up configuration of an unknown wallet gets 404',
  async (t) => {
    const res = await t.http.patch(topupPath(`${idPrefix(spec, 'Wallet.id')}conform0unknown`), { amount: '10.00' });
    t.expectStatus('STATUS.404.UNKNOWN_RESOURCE', res, 404);
  },
  concurrent,
);
