/**
 * Walking a list page by page, for the state model: what its pages hold, walked again where
 * other traffic may have moved it. What a walk must be (its total reached, no element twice, the
 * run's resources found) is judged by the list-walks judge of the check registry on every page
 * the walks send (src/engine/checks/resources/list-walks.ts).
 */
import { loadSpec } from '../../contract/index.ts';
import { objectNameOf } from '../predicates.ts';
import type { Exchange } from '../types.ts';
import { bodyOf, type Json, type ModelHttp } from './state.ts';

/** A list envelope's object name, as ListEnvelope states it. */
const LIST = objectNameOf(await loadSpec(), 'ListEnvelope');

export interface ListTarget {
  /** e.g. "GET /v0/customers" */
  label: string;
  /** The path with its fixed query (`resourceId=...`), without limit and offset. */
  path: string;
  pageSize: number;
  /** Pages read at most in one walk: a longer list is not judged. */
  maxPages: number;
  /**
   * A rate-limited list: the pages one walk may spend of its bucket. When the first page
   * states more elements than that many pages of pageSize hold, the walk starts again with
   * pages large enough (up to maxPageSize), so that walks do not use up a bucket other
   * scenarios share.
   */
  budget?: { pages: number; maxPageSize: number };
}

export interface Walk {
  elements: Json[];
  /** The exchanges read, in order (the first page is the evidence of the total). */
  pages: Exchange[];
  /** The total the first page stated. */
  total: number;
  /** The walk reached the list's end (an empty or short page past total). */
  complete: boolean;
  /** Every page stated the same total and no element came twice: the list held still. */
  stable: boolean;
}

export type WalkOutcome = { walk: Walk } | { unjudged: string };

const isInt = (v: unknown): v is number => Number.isInteger(v);

function pagePath(t: ListTarget, offset: number): string {
  return `${t.path}${t.path.includes('?') ? '&' : '?'}limit=${t.pageSize}&offset=${offset}`;
}

/** Reads every page, stepping by the elements each holds; says why when the list cannot be paged. */
export async function walkList(http: ModelHttp, t: ListTarget): Promise<WalkOutcome> {
  const elements: Json[] = [];
  const pages: Exchange[] = [];
  const ids = new Set<string>();
  let total: number | undefined;
  let stable = true;
  for (let offset = 0; pages.length < t.maxPages;) {
    const ex = await http.send('GET', pagePath(t, offset));
    pages.push(ex);
    if (ex.status !== 200) return { unjudged: `${t.label} answered ${ex.status ?? ex.transportError} while paged` };
    const b = bodyOf(ex);
    const p = b.pagination && typeof b.pagination === 'object' ? (b.pagination as Json) : {};
    if (b.object !== LIST || !Array.isArray(b.data) || !isInt(p.total))
      return { unjudged: `${t.label} answers no list envelope stating pagination.total` };
    // The page must say it starts where it was asked to: a list that ignores offset cannot be walked.
    if (p.offset !== offset)
      return { unjudged: `${t.label} answered offset ${JSON.stringify(p.offset)} when asked for offset ${offset}` };
    total ??= p.total;
    if (p.total !== total) stable = false;
    const budget = t.budget;
    if (budget && pages.length === 1 && total > t.pageSize * budget.pages) {
      const pageSize = Math.min(budget.maxPageSize, Math.ceil(total / budget.pages));
      if (pageSize > t.pageSize) return walkList(http, { ...t, pageSize, budget: undefined });
    }
    for (const e of b.data as unknown[]) {
      const el = e && typeof e === 'object' ? (e as Json) : {};
      if (typeof el.id === 'string') {
        if (ids.has(el.id)) stable = false;
        ids.add(el.id);
      }
      elements.push(el);
    }
    offset += b.data.length;
    // An empty page ends the list; so does a short one at or past the stated total.
    if (!b.data.length || (offset >= total && b.data.length < t.pageSize))
      return { walk: { elements, pages, total, complete: true, stable } };
  }
  return { unjudged: `${t.label} holds more than ${t.maxPages} pages of ${t.pageSize}: not walked to its end` };
}

const reached = (w: Walk) => new Set(w.elements.map((e, i) => (typeof e.id === 'string' ? e.id : `#${i}`))).size;

/**
 * Walks the list until a walk holds still, and walks it once more when it does not reach the
 * total it states: the list-walks judge of the registry (src/engine/checks/resources) judges
 * every walk, and on a list other traffic may change it fails a mismatch only when a second
 * walk shows the same. Returns the last complete walk, or why none could be read.
 */
export async function walkStill(http: ModelHttp, t: ListTarget, attempts = 4): Promise<{ walk?: Walk; why: string }> {
  let last: Walk | undefined;
  let why = '';
  for (let i = 0; i < attempts; i++) {
    const out = await walkList(http, t);
    if ('unjudged' in out) return { ...(last ? { walk: last } : {}), why: out.unjudged };
    last = out.walk;
    if (!out.walk.stable) {
      why = `${t.label} changed while it was paged (other traffic), ${attempts} walks in a row`;
      continue;
    }
    if (reached(out.walk) === out.walk.total) return { walk: out.walk, why: '' };
    const again = await walkList(http, t);
    if ('unjudged' in again) continue;
    last = again.walk;
    if (again.walk.stable && again.walk.total === out.walk.total && reached(again.walk) === reached(out.walk))
      return { walk: again.walk, why: '' };
    why = `${t.label} changed between two walks (other traffic), ${attempts} times`;
  }
  return { ...(last ? { walk: last } : {}), why };
}
