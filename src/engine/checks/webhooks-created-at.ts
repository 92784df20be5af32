/**
 * WEBHOOKS.CREATED_AT.FIRST_ENABLED: a merchant's webhook configuration keeps the createdAt of
 * its first enabling: every later PATCH /v0/webhooks answer of that merchant in the stream (a
 * scenario's, a proxy session's, a HAR file's) states the same instant, however delivery is
 * toggled.
 */
import { describeStatus, finding, isObject, type Check } from './types.ts';
import { CappedMap } from './capped-map.ts';

const RULE = 'WEBHOOKS.CREATED_AT.FIRST_ENABLED';
const NAME = 'webhooks-created-at';
const MERCHANTS_KEPT = 5_000;

export const webhooksCreatedAt: Check = {
  name: NAME,
  ruleIds: [RULE],
  description: 'Every answer of a merchant’s webhook updates states the createdAt of the first one.',
  open() {
    /** Merchant (or, when the answer names none, the credential) → the first createdAt seen; the oldest forgotten past a bound. */
    const first = new CappedMap<string, string>(MERCHANTS_KEPT);
    return {
      observe(ex, ctx, op) {
        if (op?.operationId !== 'updateWebhooks' || ex.status === undefined || ex.status < 200 || ex.status >= 300)
          return undefined;
        const body = ex.body;
        if (!isObject(body)) return undefined;
        const owner =
          typeof body.merchantId === 'string' ? `merchant ${body.merchantId}` : `key ${ctx.credential ?? 'none'}`;
        const was = first.get(owner);
        const stated = typeof body.createdAt === 'string' && !Number.isNaN(Date.parse(body.createdAt));
        if (!stated && was === undefined) return undefined;
        if (was === undefined) {
          first.set(owner, body.createdAt as string);
          return undefined;
        }
        // Once stated, a later answer that drops it no longer keeps it either.
        const ok = stated && Date.parse(was) === Date.parse(body.createdAt as string);
        return {
          judged: [RULE],
          findings: ok
            ? []
            : [
                finding(
                  NAME,
                  [RULE],
                  'Webhooks createdAt changed when delivery was toggled',
                  `${describeStatus(ex)}: ${owner}: createdAt was ${was}, now ${JSON.stringify(body.createdAt) ?? 'absent'}`,
                  ex,
                ),
              ],
        };
      },
    };
  },
};
