/**
 * What a stream of exchanges has shown so far, for the resource judges: which merchant each
 * credential acts for, who owns each resource the run made or was given, what was deleted,
 * the last representation of each resource, and the walks of every list. The stream
 * (stream.ts) reads each exchange once into a `Shown` (shown.ts), lets the judges compare it
 * with the ledger, then records it here. Bounded: a long proxy session keeps the newest.
 */
import type { Resource, ResourceList, Role } from '../../../contract/index.ts';
import type { Exchange } from '../../types.ts';
import { CappedMap } from '../capped-map.ts';

export type Json = Record<string, any>;

/** One representation of a resource in an answer. */
export interface Item {
  /** How the resource is named (its id, or the value of its key field or parameter). */
  key: string;
  body: Json;
}

/** What one exchange shows of a documented resource, read once by the stream. */
export interface Shown {
  resource: Resource;
  role: Role;
  list?: ResourceList;
  /** The key the request's path names (reads, updates and deletes by id). */
  pathKey?: string;
  /** The representations a 2xx answer holds: the body, or each element of a list page. */
  items: Item[];
  /** Whether the document shows this answer's body (contents of bodies it does not show are not compared). */
  bodyShown: boolean;
  /** The JSON object the request sent ({} when none). */
  sent: Json;
  /** A list page: what its request names of its elements (scope field → value), and the page itself. */
  page?: Page;
}

export interface Page {
  scope: Record<string, string>;
  /** Some scope field could not be read off the request: the walk cannot tell what belongs in it. */
  scopeUnknown: boolean;
  askedOffset: number;
  /** The offset the answer states, when it states one. */
  statedOffset?: number;
  statedLimit?: number;
  total?: number;
  /** Element ids, in order (elements without a string id are left out). */
  ids: string[];
  size: number;
  /** The operation documents its offset parameter (offset-honoured is judged only then). */
  offsetDocumented: boolean;
}

/** A walk of one list from offset 0, page after contiguous page. */
export interface Walk {
  /** `GET /path?filters` as asked (limit and offset left out). */
  label: string;
  resource: Resource;
  operationId: string;
  scope: Record<string, string>;
  scopeUnknown: boolean;
  credential?: string;
  /** Scoped to a resource named in its path or query: it holds still while the run alone writes to that resource. */
  scoped: boolean;
  pages: Exchange[];
  ids: string[];
  /** Ids met more than once. */
  repeats: string[];
  totals: number[];
  complete: boolean;
  startMs: number;
  endMs: number;
  /** Where the next page must start. */
  next: number;
}

/** A resource's key across resources: `Schema:key`. */
export const keyOf = (resource: Resource, key: string): string => `${resource.schema}:${key}`;

const MAX_ENTRIES = 20_000;
const MAX_WALKS = 200;

export interface Timing {
  credential?: string;
  startMs: number;
  endMs: number;
}

export class Ledger {
  /** The merchant a credential acts for ('primary' is the run's own key). */
  readonly merchantOf = new Map<string, string>();
  /** The merchant that owns a resource id, as the run made or was given it, and its kind (`object` name) when known. */
  readonly ownerOf = new CappedMap<string, { merchant: string; object?: string }>(MAX_ENTRIES);
  /** What the run was told of resources it holds (a fixture's invoice amounts): object → id → fields. */
  readonly facts = new Map<string, CappedMap<string, Json>>();
  /** Resources whose DELETE succeeded: key → when the answer came. */
  readonly deleted = new CappedMap<string, { endMs: number; status: number }>(MAX_ENTRIES);
  /** The last representation of each resource seen, and when. */
  readonly last = new CappedMap<string, { body: Json; endMs: number; resource: Resource }>(MAX_ENTRIES);
  /** Complete walks, newest last. */
  readonly walks: Walk[] = [];
  private readonly unrelated = new Set<string>();
  private readonly open = new Map<string, Walk>();

  /** Declares that neither merchant may manage the other (the fixtures' unmanaged merchant). */
  declareUnrelated(a: string, b: string): void {
    if (a !== b) this.unrelated.add([a, b].sort().join(' '));
  }

  isUnrelated(a: string, b: string): boolean {
    return this.unrelated.has([a, b].sort().join(' '));
  }

  fact(object: string, id: string, fields: Json): void {
    let m = this.facts.get(object);
    if (!m) this.facts.set(object, (m = new CappedMap<string, Json>(MAX_ENTRIES)));
    m.set(id, { ...(m.get(id) ?? {}), ...fields });
  }

  /** The walk a list page belongs to (before the judges see it), and whether the page completed it. */
  addPage(ex: Exchange, shown: Shown, t: Timing): Walk | undefined {
    const page = shown.page;
    const opId = ex.operationId ?? shown.list?.operation ?? '';
    if (!page || !shown.list) return undefined;
    const [path, query = ''] = ex.path.split(/\?(.*)/s);
    const filters = new URLSearchParams(query);
    filters.delete('limit');
    filters.delete('offset');
    filters.sort();
    const label = `GET ${path}${filters.size ? `?${filters}` : ''}`;
    const id = `${opId} ${label} ${t.credential ?? ''}`;
    // A page that states another offset than the one asked cannot be placed in a walk.
    if (page.statedOffset !== undefined && page.statedOffset !== page.askedOffset) {
      this.open.delete(id);
      return undefined;
    }
    let walk = this.open.get(id);
    if (page.askedOffset === 0) {
      walk = {
        label,
        resource: shown.resource,
        operationId: opId,
        scope: page.scope,
        scopeUnknown: page.scopeUnknown,
        credential: t.credential,
        scoped: Object.values(shown.list.scope).some((s) => s.in !== 'key'),
        pages: [],
        ids: [],
        repeats: [],
        totals: [],
        complete: false,
        startMs: t.startMs,
        endMs: t.endMs,
        next: 0,
      };
      this.open.set(id, walk);
      while (this.open.size > MAX_WALKS) this.open.delete(this.open.keys().next().value as string);
    } else if (!walk || walk.next !== page.askedOffset || t.startMs < walk.endMs) {
      // Not the page after the last one, or sent before it was answered: no walk.
      this.open.delete(id);
      return undefined;
    }
    walk.pages.push(ex);
    for (const i of page.ids) {
      if (walk.ids.includes(i) && !walk.repeats.includes(i)) walk.repeats.push(i);
      walk.ids.push(i);
    }
    if (page.total !== undefined) walk.totals.push(page.total);
    walk.next = page.askedOffset + page.size;
    walk.endMs = t.endMs;
    const limit = page.statedLimit;
    walk.complete =
      page.size === 0 ||
      (page.total !== undefined && walk.next >= page.total) ||
      (page.total === undefined && limit !== undefined && page.size < limit);
    if (walk.complete) {
      this.open.delete(id);
      this.walks.push(walk);
      if (this.walks.length > MAX_WALKS) this.walks.shift();
    }
    return walk;
  }

  /** Records what the exchange showed, after the judges compared it with what came before. */
  learn(shown: Shown, ex: Exchange, t: Timing): void {
    const ok = ex.status !== undefined && ex.status >= 200 && ex.status < 300;
    if (!ok) return;
    const r = shown.resource;
    if (shown.role === 'delete' && shown.pathKey !== undefined)
      this.deleted.set(keyOf(r, shown.pathKey), { endMs: t.endMs, status: ex.status! });
    const creator = t.credential === undefined ? undefined : this.merchantOf.get(t.credential);
    for (const item of shown.items) {
      const k = keyOf(r, item.key);
      this.last.set(k, { body: item.body, endMs: t.endMs, resource: r });
      if (shown.role === 'create' && r.key && 'field' in r.key && r.key.field === 'id') {
        // Made for the merchant it names, else for the key's.
        const named = r.owner ? (shown.sent[r.owner] ?? queryOwner(ex, r.owner)) : undefined;
        const owner = typeof named === 'string' ? named : creator;
        if (owner) this.ownerOf.set(item.key, { merchant: owner, ...(r.object ? { object: r.object } : {}) });
      }
    }
  }
}

function queryOwner(ex: Exchange, field: string): string | undefined {
  const q = ex.path.split('?')[1];
  return q ? (new URLSearchParams(q).get(field) ?? undefined) : undefined;
}

/** Answers that come before the resource is looked up (credentials, permission, rate, a request refused as such). */
export const FIRST = new Set([400, 401, 403, 429]);
