/**
 * Exchanges against each other: a merchant created reads back with the fields it was
 * created with; two listed endpoints do not answer their 429s with the same message (it is
 * specific to the endpoint). (The webhooks createdAt is the registry's: checks/webhooks-created-at.ts.)
 */
import type { PassiveUnit } from '../types.ts';
import { Lru } from '../lru.ts';
import { expect, holds, is2xx, obj, opId, show, type Json } from './support.ts';

const U = 'consistency';
const MERCHANT_FIELDS = ['name', 'email', 'description', 'metadata', 'vatNumber', 'address', 'billingAddress', 'phone'];

export function consistencyUnit(): PassiveUnit {
  const created = new Lru<string, Json>(5_000);
  /** The first 429 message of each listed endpoint. */
  const tooManyMessage = new Map<string, string>();
  return {
    name: U,
    scope: 'server',
    title: 'exchanges consistent with each other',
    ruleIds: ['MERCHANTS.GET.ROUND_TRIP', 'RATE.EXCEEDED.BODY#endpoint-specific'],
    observe(o, ctx) {
      const id = opId(o);
      const got = obj(o.got);
      const message = got?.message;
      if (
        id &&
        o.record.status === 429 &&
        o.operation?.rateLimit &&
        typeof message === 'string' &&
        message.trim() !== '' &&
        !tooManyMessage.has(id)
      ) {
        const t = ctx.server(this);
        for (const [other, m] of tooManyMessage) {
          expect(
            t,
            U,
            o,
            'RATE.EXCEEDED.BODY#endpoint-specific',
            m.trim() !== message.trim(),
            'Two listed endpoints answer 429 with the same message',
            () => `the 429 message ${show(message)} is also that of ${other}; it is specific to the endpoint`,
          );
        }
        tooManyMessage.set(id, message);
      }
      if (!id || !is2xx(o) || !got) return;
      const t = ctx.server(this);
      if (id === 'createMerchant' && typeof got.id === 'string') {
        const sent = obj(o.request.body) ?? {};
        created.set(
          got.id,
          Object.fromEntries(MERCHANT_FIELDS.filter((f) => sent[f] !== undefined).map((f) => [f, sent[f]])),
        );
      } else if (id === 'getMerchant') {
        const sent = created.get(o.request.params.id);
        if (!sent) return;
        const differ = Object.entries(sent).filter(([k, v]) => !holds(got[k], v));
        expect(
          t,
          U,
          o,
          'MERCHANTS.GET.ROUND_TRIP',
          got.id === o.request.params.id && differ.length === 0,
          'The merchant does not read back as created',
          () =>
            `id ${show(got.id)}; ` +
            `${differ.map(([k, v]) => `${k} created ${show(v)}, read ${show(got[k])}`).join('; ') || 'fields as created'}`,
        );
      }
    },
  };
}
