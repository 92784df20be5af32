/**
 * Version migrations across the exchanges of a stream (a scenario's, a proxy session's, a HAR
 * file's), judged only on what the stream itself showed, by the same credential, within a few
 * minutes, with no write to the subscription seen between: removals and migrations the stream
 * does not see may happen outside it.
 * - MIGRATION.400.TARGET_RANGE: an invalid targetVersionNumber answered 404 on a subscription the
 *   stream shows to exist (an answer holding it, a reference extension's too, never judged itself;
 *   a migration of it accepted or refused with 409), before or after the 404: a 404 is for a
 *   version missing from the plan, a bad number is a bad request.
 * - MIGRATION.SAME_VERSION.NO_CHANGE: after a same-version migration (from and to the version
 *   asked) nothing is pending, so migrating to that version again changes nothing: changed false,
 *   on the same version. The first one is not judged: a move left pending may be replaced by it.
 */
import type { Finding } from '../types.ts';
import { MIGRATE, TARGET_RANGE, targetOf } from './migration.ts';
import { objectNameOf } from '../predicates.ts';
import { describeStatus, finding, is2xx, isObject, type Check, type SpecView } from './types.ts';
import { CappedMap } from './capped-map.ts';

const NO_CHANGE = 'MIGRATION.SAME_VERSION.NO_CHANGE';
const WINDOW_MS = 10 * 60_000;
const KEPT = 20_000;

const decoded = (segment: string): string => {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
};

/** Ids of the subscriptions a 2xx answer holds: the body itself, its `subscription`, or a list's `data`. */
function subscriptionsIn(body: unknown, spec: SpecView): string[] {
  if (!isObject(body)) return [];
  const subscription = objectNameOf(spec, 'Subscription');
  const items = [body, body.subscription, ...(Array.isArray(body.data) ? body.data : [])];
  return items.flatMap((s) => (isObject(s) && s.object === subscription && typeof s.id === 'string' ? [s.id] : []));
}

export const migrationRangeShown: Check = {
  name: 'migration-range-shown',
  ruleIds: [TARGET_RANGE],
  description:
    'An invalid targetVersionNumber gets 400, not 404, on a subscription the stream shows to exist to the same key.',
  open() {
    /** When each (credential, subscription) was last shown to exist. */
    const seen = new CappedMap<string, number>(KEPT);
    /** 404s to an invalid target whose subscription the stream had not shown yet, with their finding. */
    const pending = new CappedMap<string, { finding: Finding; endMs: number }>(KEPT);
    /** Findings on earlier 404s that an extension's answer confirmed: reported with the next judgement. */
    let confirmed: Finding[] = [];
    const show = (ids: string[], credential: string, startMs: number, endMs: number) => {
      for (const s of ids) {
        const key = `${credential}\n${s}`;
        seen.set(key, endMs);
        const earlier = pending.get(key);
        pending.delete(key);
        if (earlier && startMs - earlier.endMs <= WINDOW_MS) confirmed.push(earlier.finding);
      }
    };
    const report = () => {
      const findings = confirmed;
      confirmed = [];
      return findings.length ? { judged: [TARGET_RANGE], findings } : undefined;
    };
    return {
      observe(ex, ctx, op) {
        if (ctx.credential === undefined) return report();
        const migration = op?.operationId === MIGRATE;
        const id = ctx.request.params.id;
        const shown = is2xx(ex) ? subscriptionsIn(ex.body, ctx.spec) : [];
        if (migration && id && (is2xx(ex) || ex.status === 409)) shown.push(id);
        show(shown, ctx.credential, ctx.startMs, ctx.endMs);
        // A request broken on purpose is judged whole by migration-target-range.
        const judgeable = migration && ex.status === 404 && !!id && !ctx.brokenOnPurpose && !ctx.request.bodyNotJson;
        const t = targetOf(ctx);
        if (judgeable && !t.inRange) {
          const key = `${ctx.credential}\n${id}`;
          const at = seen.get(key);
          const f = finding(
            'migration-range-shown',
            [TARGET_RANGE],
            'A bad targetVersionNumber answered 404 on a subscription that exists',
            `${describeStatus(ex)}: targetVersionNumber ${JSON.stringify(t.value) ?? 'absent'} is outside ${t.range} ` +
              `or not an integer: 400, not 404 (the stream shows subscription ${id} to this key)`,
            ex,
          );
          if (at !== undefined && ctx.startMs - at <= WINDOW_MS) confirmed.push(f);
          else if (!pending.has(key)) pending.set(key, { finding: f, endMs: ctx.endMs });
        }
        return report();
      },
      // A reference extension's answer (a fixture's create or read) is never judged, but shows the subscription exists.
      unread(ex, t) {
        if (t.credential !== undefined && is2xx(ex))
          show(subscriptionsIn(ex.body, t.spec), t.credential, t.startMs, t.endMs);
      },
      finish: () => report(),
    };
  },
};

export const migrationSameVersion: Check = {
  name: 'migration-same-version',
  ruleIds: [NO_CHANGE],
  description:
    'Migrating again to the version a same-version migration left a subscription on changes nothing (changed false).',
  open() {
    /** Subscription → the version a same-version migration by `credential` left it on, nothing pending. */
    const settled = new CappedMap<string, { credential: string; version: number; endMs: number }>(KEPT);
    return {
      // A write the judges do not read (a reference extension's) may have moved any subscription its path names.
      unread(ex) {
        if (ex.method === 'GET' || (ex.status !== undefined && ex.status >= 400 && ex.status < 500)) return;
        for (const segment of ex.path.split('?')[0].split('/')) settled.delete(decoded(segment));
      },
      observe(ex, ctx, op) {
        const id = ctx.request.params.id;
        if (op?.operationId !== MIGRATE || !id) {
          // Any other write naming the subscription may move it.
          if (ex.method !== 'GET') for (const v of Object.values(ctx.request.params)) settled.delete(v);
          return undefined;
        }
        const status = ex.status;
        // A refusal changes nothing; an answer that is neither leaves the subscription unknown.
        if (status !== undefined && status >= 400 && status < 500) return undefined;
        const was = settled.get(id);
        settled.delete(id);
        if (!is2xx(ex) || ctx.brokenRequest || ctx.credential === undefined) return undefined;
        const target = targetOf(ctx);
        const body = isObject(ex.body) ? ex.body : {};
        const m = isObject(body.migration) ? body.migration : {};
        const sub = isObject(body.subscription) ? body.subscription : {};
        if (target.inRange && m.fromVersionNumber === target.value && m.toVersionNumber === target.value)
          settled.set(id, { credential: ctx.credential, version: target.value as number, endMs: ctx.endMs });
        const same =
          was !== undefined &&
          was.credential === ctx.credential &&
          ctx.startMs - was.endMs <= WINDOW_MS &&
          target.value === was.version;
        if (!same) return undefined;
        const onVersion = sub.versionNumber === undefined || sub.versionNumber === was.version;
        const ok = m.changed === false && onVersion;
        return {
          judged: [NO_CHANGE],
          findings: ok
            ? []
            : [
                finding(
                  'migration-same-version',
                  [NO_CHANGE],
                  'Migrating to the version in use changed something',
                  `${describeStatus(ex)}: an earlier migration left subscription ${id} on version ${was.version} with ` +
                    `nothing pending; migrating to it again answers changed ${JSON.stringify(m.changed) ?? 'absent'}` +
                    (onVersion ? '' : `, versionNumber ${JSON.stringify(sub.versionNumber)}`),
                  ex,
                ),
              ],
        };
      },
    };
  },
};
