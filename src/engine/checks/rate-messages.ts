/**
 * RATE.EXCEEDED.BODY#endpoint-specific: the 429 message of a listed rate-limited endpoint (the
 * rule's operations) is specific to it: the first 429 message of each listed endpoint in the
 * stream is compared with those of the others, and the same text fails. A 429 without a message
 * is the too-many-requests check's finding, and compares nothing.
 */
import { describeStatus, finding, isObject, ruleOperations, type Check } from './types.ts';

const RULE = 'RATE.EXCEEDED.BODY';
const PART = `${RULE}#endpoint-specific`;
const NAME = 'rate-messages';

export const rateMessages: Check = {
  name: NAME,
  ruleIds: [PART],
  description: 'Two listed rate-limited endpoints do not answer their 429s with the same message.',
  open() {
    /** Listed operation → the first 429 message it answered. */
    const first = new Map<string, string>();
    return {
      observe(ex, ctx, op) {
        if (ex.status !== 429 || !op || first.has(op.operationId)) return undefined;
        if (!ruleOperations(ctx, RULE).includes(op.operationId)) return undefined;
        const message = isObject(ex.body) && typeof ex.body.message === 'string' ? ex.body.message.trim() : '';
        if (!message) return undefined;
        const compared = [...first];
        first.set(op.operationId, message);
        if (!compared.length) return undefined;
        const same = compared.filter(([, m]) => m === message).map(([other]) => other);
        return {
          judged: [PART],
          findings: same.length
            ? [
                finding(
                  NAME,
                  [PART],
                  'Two listed endpoints answer 429 with the same message',
                  `${describeStatus(ex)}: the 429 message ${JSON.stringify(message)} is also that of ` +
                    `${same.join(', ')}; it is specific to the endpoint`,
                  ex,
                ),
              ]
            : [],
        };
      },
    };
  },
};
