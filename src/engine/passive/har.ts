/** A passive judgement of recorded traffic: the entries of a HAR file, read one at a time. */
import { loadSpec, loadRules, type Spec } from '../../spec/index.ts';
import { readHarEntries } from '../traffic/har-read.ts';
import { recordOfEntry, relativePath, type HarEntry } from '../traffic/har-entry.ts';
import { PassiveJudge, type PassiveOutcome } from './judge.ts';

export interface HarJudgement {
  outcome: PassiveOutcome;
  /** The base URL judged (given, or found: the first origin whose paths fit the spec). */
  baseUrl: string | undefined;
  entries: number;
  /** Entries outside the base URL (other hosts, other paths): not the target's traffic. */
  outside: number;
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

export async function judgeHar(path: string, opts: { baseUrl?: string } = {}): Promise<HarJudgement> {
  const [spec, rules] = await Promise.all([loadSpec(), loadRules()]);
  let base = opts.baseUrl ? new URL(opts.baseUrl.endsWith('/') ? opts.baseUrl : `${opts.baseUrl}/`) : undefined;
  let judge: PassiveJudge | undefined;
  let entries = 0;
  let outside = 0;
  const baseText = () => base!.href.replace(/\/$/, '');
  for await (const entry of readHarEntries(path)) {
    entries += 1;
    base ??= detectBase(entry, spec);
    const record =
      base && relativePath(entry.request?.url, base) !== undefined ? recordOfEntry(entry, base) : undefined;
    if (!record) {
      outside += 1;
      continue;
    }
    judge ??= new PassiveJudge(spec, rules, baseText());
    judge.observe(record);
  }
  judge ??= new PassiveJudge(spec, rules, base ? baseText() : 'http://unknown.invalid');
  return { outcome: judge.finish(), baseUrl: base ? baseText() : undefined, entries, outside };
}
