/** A passive judgement of recorded traffic: the entries of a HAR file, read one at a time. */
import { loadSpec, loadRules, type Spec } from '../contract/index.ts';
import { readHarEntries } from './traffic/har-read.ts';
import { recordOfEntry, relativePath, type HarEntry } from './traffic/har-entry.ts';
import { PassiveJudge, type PassiveOutcome } from './judge.ts';

export interface HarJudgement {
  outcome: PassiveOutcome;
  /** The base URL judged (given, or found: the first origin whose paths fit the spec). */
  baseUrl: string | undefined;
  entries: number;
  /** Entries outside the base URL (other hosts, other paths): not the target's traffic. */
  outside: number;
  /** The API base URLs the file holds (paths that fit the interface), most entries first. */
  bases: { url: string; entries: number }[];
  /** The origins of the file's entries, most entries first (when no path fits the interface). */
  origins: { url: string; entries: number }[];
  /** The given base URL was that of the `conform proxy` that recorded the file: its target was judged. */
  proxy?: { url: string; target: string };
}

/** The base of an entry's URL whose path (after an optional prefix) fits an operation of the spec. */
function detectBase(e: HarEntry, spec: Spec): URL | undefined {
  let u: URL;
  try {
    u = new URL(e.request.url);
  } catch {
    return undefined;
  }
  const m = /\/v\d+\//.exec(u.pathname);
  if (!m) return undefined;
  const prefix = u.pathname.slice(0, m.index);
  if (!spec.matchPath(String(e.request.method ?? 'GET'), u.pathname.slice(m.index))) return undefined;
  return new URL(`${u.origin}${prefix}/`);
}

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

/** The same base URL, `localhost` and `127.0.0.1` being one host. */
function sameBase(a: URL, b: URL): boolean {
  const host = (u: URL) => (LOOPBACK.has(u.hostname) ? 'loopback' : u.hostname);
  const path = (u: URL) => u.pathname.replace(/\/?$/, '/');
  return a.protocol === b.protocol && a.port === b.port && host(a) === host(b) && path(a) === path(b);
}

const asBase = (url: string) => new URL(url.endsWith('/') ? url : `${url}/`);
const text = (u: URL) => u.href.replace(/\/$/, '');
const ranked = (m: Map<string, number>) =>
  [...m].sort((a, b) => b[1] - a[1]).map(([url, entries]) => ({ url, entries }));

export async function judgeHar(path: string, opts: { baseUrl?: string } = {}): Promise<HarJudgement> {
  const given = opts.baseUrl ? asBase(opts.baseUrl) : undefined;
  const { recordedBy, ...first } = await pass(path, given);
  const { proxy, target } = recordedBy;
  if (!given || first.outcome.exchanges > 0 || !proxy || !target || !sameBase(given, asBase(proxy))) return first;
  // The proxy's own URL (what the clients used): the file holds its target's traffic.
  const { recordedBy: _, ...again } = await pass(path, asBase(target));
  return { ...again, proxy: { url: text(given), target: text(asBase(target)) } };
}

async function pass(
  path: string,
  given: URL | undefined,
): Promise<HarJudgement & { recordedBy: { proxy?: string; target?: string } }> {
  const [spec, rules] = await Promise.all([loadSpec(), loadRules()]);
  let base = given;
  let judge: PassiveJudge | undefined;
  let entries = 0;
  let outside = 0;
  const bases = new Map<string, number>();
  const origins = new Map<string, number>();
  const recordedBy: { proxy?: string; target?: string } = {};
  const onLogField = (name: string, value: string) => {
    if (name === '_conformProxy') recordedBy.proxy = value;
    if (name === '_conformTarget') recordedBy.target = value;
  };
  for await (const entry of readHarEntries(path, onLogField)) {
    entries += 1;
    const found = detectBase(entry, spec);
    if (found) bases.set(text(found), (bases.get(text(found)) ?? 0) + 1);
    const url = entry.request?.url;
    const origin = typeof url === 'string' && URL.canParse(url) ? new URL(url).origin : undefined;
    if (origin) origins.set(origin, (origins.get(origin) ?? 0) + 1);
    base ??= found;
    const record =
      base && relativePath(entry.request?.url, base) !== undefined ? recordOfEntry(entry, base) : undefined;
    if (!record) {
      outside += 1;
      continue;
    }
    judge ??= new PassiveJudge(spec, rules, text(base!));
    judge.observe(record);
  }
  judge ??= new PassiveJudge(spec, rules, base ? text(base) : 'http://unknown.invalid');
  return {
    outcome: judge.finish(),
    baseUrl: base ? text(base) : undefined,
    entries,
    outside,
    bases: ranked(bases),
    origins: ranked(origins),
    recordedBy,
  };
}
