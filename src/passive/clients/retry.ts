/**
 * The client's side of the retry rule (Limits): "do not retry a 429 at once. Wait
 * retry-after seconds; if absent wait one second and double the wait on each further
 * rejection; stop after five attempts." Judged per client (the hash of its key).
 *
 * A retry is the same request (client, method, path and query, body) sent after a 429 for
 * it came back. A request sent while the 429 was still on its way is not a retry; one sent
 * more than a minute after the wait was over starts a new request (the chain ended).
 */
import { createHash } from 'node:crypto';
import { backoffMs, parseRetryAfter, MAX_ATTEMPTS } from '../../engine/http/retry.ts';
import type { Exchange } from '../../engine/types.ts';
import { CappedMap } from '../../engine/checks/capped-map.ts';
import { RETRY_AFTER } from '../../engine/ratelimit/headers.ts';
import type { JudgeContext, Observed, PassiveUnit } from '../types.ts';

export const RETRY_WAIT = 'RETRY.CLIENT.WAIT';
export const RETRY_MAX_ATTEMPTS = 'RETRY.CLIENT.MAX_ATTEMPTS';
/** Clock granularity between the two ends of a wait (timers, HAR's whole milliseconds). */
export const WAIT_TOLERANCE_MS = 50;
/** A repeat later than the wait plus this is a new request, not a retry. */
export const CHAIN_GAP_MS = 60_000;
const MAX_CHAINS = 50_000;

interface Chain {
  client: string;
  /** Consecutive 429s so far. */
  rejections: number;
  /** When the latest 429 came back. */
  lastEnd: number;
  /** Its retry-after: seconds, `invalid` when not a number of seconds, undefined when absent. */
  retryAfter: number | 'invalid' | undefined;
  label: string;
  maxFailed: boolean;
}

function signature(o: Observed): string {
  const body = o.record.requestBody ? createHash('sha1').update(o.record.requestBody).digest('base64') : '';
  return `${o.client} ${o.record.method} ${o.record.path} ${body}`;
}

function requiredWaitMs(c: Chain): number | undefined {
  if (c.retryAfter === 'invalid') return undefined;
  return c.retryAfter !== undefined ? c.retryAfter * 1000 : backoffMs(c.rejections);
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(ms < 10_000 ? 3 : 1)} s`;

export function retryUnit(): PassiveUnit {
  let latest = 0;
  let seen = 0;
  let ctxRef: JudgeContext | undefined;
  const close = (c: Chain) => {
    // Five rejections and no sixth attempt: the condition that could have failed held.
    if (c.rejections >= MAX_ATTEMPTS && !c.maxFailed && ctxRef) ctxRef.client(c.client).judge(RETRY_MAX_ATTEMPTS);
  };
  const chains = new CappedMap<string, Chain>(MAX_CHAINS, (_k, c) => close(c));
  const expired = (c: Chain, at: number) => at - c.lastEnd > (requiredWaitMs(c) ?? 0) + CHAIN_GAP_MS;

  const sweep = () => {
    for (const [k, c] of chains.entries()) {
      if (!expired(c, latest)) break;
      chains.delete(k);
      close(c);
    }
  };

  return {
    name: 'client-retry',
    scope: 'client',
    title: 'the retry rule after a 429, per client',
    ruleIds: [RETRY_WAIT, RETRY_MAX_ATTEMPTS],
    observe(o, ctx) {
      ctxRef = ctx;
      latest = Math.max(latest, o.endMs);
      if (++seen % 1000 === 0) sweep();
      if (o.record.status === undefined) return;
      const key = signature(o);
      let chain = chains.get(key);
      // Sent before the 429 came back: a concurrent copy, not a retry.
      const attempt = chain !== undefined && o.startMs >= chain.lastEnd;
      if (chain && attempt && expired(chain, o.startMs)) {
        chains.delete(key);
        close(chain);
        chain = undefined;
      }
      if (chain && attempt) judgeAttempt(chain, o, ctx);
      if (o.record.status === 429) {
        chain ??= {
          client: o.client,
          rejections: 0,
          lastEnd: 0,
          retryAfter: undefined,
          label: `${o.record.method} ${o.record.path.split('?')[0]}`,
          maxFailed: false,
        };
        chain.rejections += 1;
        chain.lastEnd = o.endMs;
        const ra = o.record.responseHeaders[RETRY_AFTER];
        // Seconds, or an HTTP-date read against the response's own date (else its arrival).
        chain.retryAfter =
          ra === undefined ? undefined : (parseRetryAfter(ra, o.record.responseHeaders.date, o.endMs) ?? 'invalid');
        chains.set(key, chain);
      } else if (chain && attempt) {
        chains.delete(key);
        close(chain);
      }
    },
    finish() {
      for (const [k, c] of chains.entries()) {
        chains.delete(k);
        close(c);
      }
    },
  };
}

function judgeAttempt(c: Chain, o: Observed, ctx: JudgeContext): void {
  const tally = ctx.client(c.client);
  const n = c.rejections + 1;
  const gap = o.startMs - c.lastEnd;
  const required = requiredWaitMs(c);
  const ex: Exchange = o.exchange;
  if (required === undefined) {
    tally.note(`${c.label}: ${RETRY_AFTER} was not a number of seconds; the wait before attempt ${n} is not judged`);
  } else {
    const why =
      c.retryAfter !== undefined
        ? `${RETRY_AFTER} was ${c.retryAfter} s`
        : `no ${RETRY_AFTER}: ${required / 1000} s after rejection ${c.rejections}`;
    tally.check([RETRY_WAIT], gap >= required - WAIT_TOLERANCE_MS, () => ({
      source: 'passive:client-retry',
      title: gap < 100 ? 'Retried a 429 at once' : 'Retried a 429 too early',
      message: `client ${c.client}: attempt ${n} of ${c.label} ${seconds(gap)} after its 429 (${why}).`,
      exchange: ex,
    }));
  }
  if (n > MAX_ATTEMPTS && !c.maxFailed) {
    c.maxFailed = true;
    tally.check([RETRY_MAX_ATTEMPTS], false, () => ({
      source: 'passive:client-retry',
      title: `More than ${MAX_ATTEMPTS} attempts at a request that kept getting 429`,
      message:
        `client ${c.client}: attempt ${n} of ${c.label} after ${c.rejections} consecutive 429s; a ` +
        `client stops after ${MAX_ATTEMPTS} attempts.`,
      exchange: ex,
    }));
  }
}
