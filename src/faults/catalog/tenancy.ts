/**
 * Emulates a target that does not scope a request to the merchant of its key: the proxy
 * learns which key first worked with each id (ids in paths and `id`/`merchantId` of 2xx
 * answers), and when another key is refused (403 or 404) on a request naming that id, it
 * sends the same request again with the owner's key and answers with that. The target
 * then really acts on another merchant's resource, as the leaking server would.
 */
import type { FaultContext, ProxyRequest, ProxyResponse } from '../fault-proxy.ts';
import { bodyOf, is2xx, pathOf, stateMap } from './helpers.ts';

/** Prefixed ids as the document writes them (`cus_...`, `org_...`). */
const ID = /^[a-z]+_[A-Za-z0-9]+$/;

function owners(ctx: FaultContext): Map<string, string> {
  return stateMap<string, string>(ctx, 'tenancy:owners');
}

function idsIn(req: ProxyRequest): string[] {
  const segments = pathOf(req)
    .split('/')
    .map((s) => decodeURIComponent(s));
  const query = [...new URLSearchParams(req.path.split('?')[1] ?? '').values()];
  return [...segments, ...query].filter((s) => ID.test(s));
}

/**
 * Records the key of a 2xx exchange as the owner of the ids it names, and of `named` (ids
 * the caller found in the request's body); the first key wins.
 */
export function learnOwners(req: ProxyRequest, res: ProxyResponse, ctx: FaultContext, named: string[] = []): void {
  const key = req.headers.authorization;
  if (!key || !is2xx(res)) return;
  const known = owners(ctx);
  const b = bodyOf(res);
  const found = [
    ...idsIn(req),
    ...named.filter((v) => ID.test(v)),
    ...[b?.id, b?.merchantId].filter((v): v is string => typeof v === 'string' && ID.test(v)),
  ];
  for (const id of found) if (!known.has(id)) known.set(id, key);
}

/** The owner key of the first id `ids` names that another key owns, if any. */
export function foreignOwner(req: ProxyRequest, ctx: FaultContext, ids: string[]): string | undefined {
  const known = owners(ctx);
  for (const id of ids) {
    const owner = known.get(id);
    if (owner && owner !== req.headers.authorization) return owner;
  }
  return undefined;
}

/** A list answer with no items: what a scoped server answers a filter on another merchant's resource. */
const emptyList = (res: ProxyResponse): boolean =>
  is2xx(res) && Array.isArray(bodyOf(res)?.data) && bodyOf(res)!.data.length === 0;

/**
 * When `res` refuses `req` (403 or 404), or filters everything out of a list, and `ids`
 * names a resource of another key, the answer the owner's key gets to the same request
 * (when it shows more); undefined otherwise.
 */
export async function leak(
  req: ProxyRequest,
  res: ProxyResponse,
  ctx: FaultContext,
  ids: string[],
): Promise<ProxyResponse | undefined> {
  if (res.status !== 403 && res.status !== 404 && !emptyList(res)) return undefined;
  const owner = foreignOwner(req, ctx, ids);
  if (!owner) return undefined;
  const again = await ctx.upstream({ ...req, headers: { ...req.headers, authorization: owner } });
  if (!is2xx(again) || emptyList(again)) return undefined;
  ctx.applied();
  return again;
}
