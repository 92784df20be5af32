/**
 * Reads what one exchange shows of a documented resource (spec/openapi.yaml x-resource): the
 * resource its operation acts on and how, the key its path names, the representations a 2xx
 * answer holds, and for a list page what its request scopes it to. Read once per exchange by
 * the stream; every resource judge reads this one reading.
 */
import type { Resource } from '../../../contract/index.ts';
import type { Exchange } from '../../types.ts';
import { objectNameOf } from '../../predicates.ts';
import { bodyShown, is2xx, isObject, type CheckContext, type OperationInfo } from '../types.ts';
import type { Item, Json, Page, Shown } from './ledger.ts';

/** Resources have an `object` name; an answer naming another is not a representation of it. */
function isRepresentation(r: Resource, body: Json): boolean {
  return r.object === undefined || body.object === undefined || body.object === r.object;
}

function itemOf(r: Resource, body: Json, params: Record<string, string>): Item | undefined {
  if (!isRepresentation(r, body)) return undefined;
  const key = 'param' in r.key ? params[r.key.param] : body[r.key.field];
  return typeof key === 'string' && key !== '' ? { key, body } : undefined;
}

const int = (v: unknown): number | undefined => (Number.isInteger(v) ? (v as number) : undefined);

function pageOf(
  shown: Omit<Shown, 'page'>,
  ex: Exchange,
  ctx: CheckContext,
  op: OperationInfo,
  merchant?: string,
): Page | undefined {
  const body = ex.body;
  if (!isObject(body) || body.object !== objectNameOf(ctx.spec, 'ListEnvelope') || !Array.isArray(body.data))
    return undefined;
  const pagination = isObject(body.pagination) ? body.pagination : {};
  const query = ctx.request.query;
  const asked = query.get('offset');
  const askedOffset = asked === null ? 0 : Number(asked);
  if (!Number.isInteger(askedOffset) || askedOffset < 0) return undefined;
  const scope: Record<string, string> = {};
  let scopeUnknown = false;
  for (const [field, source] of Object.entries(shown.list?.scope ?? {})) {
    const value =
      source.in === 'key' ? merchant : source.in === 'path' ? ctx.request.params[source.name] : query.get(source.name);
    if (typeof value === 'string' && value !== '') scope[field] = value;
    else scopeUnknown = true;
  }
  const declared = op.parameters?.find((p) => p.in === 'query' && p.name === 'offset');
  return {
    scope,
    scopeUnknown,
    askedOffset,
    ...(int(pagination.offset) !== undefined ? { statedOffset: int(pagination.offset) } : {}),
    ...(int(pagination.limit) !== undefined ? { statedLimit: int(pagination.limit) } : {}),
    ...(int(pagination.total) !== undefined ? { total: int(pagination.total) } : {}),
    ids: body.data.flatMap((e) => (isObject(e) && typeof e.id === 'string' ? [e.id] : [])),
    size: body.data.length,
    offsetDocumented: !!declared && declared.referenceChoice === undefined && declared.notShown === undefined,
  };
}

/**
 * What `ex` shows of a resource, or undefined when its operation acts on none (or is a
 * reference extension: never judged on a target). `merchant` is the merchant the request's
 * key acts for, when known (a list scoped to the key's merchant).
 */
export function readShown(
  ex: Exchange,
  ctx: CheckContext,
  op: OperationInfo | undefined,
  merchant?: string,
): Shown | undefined {
  if (!op || op.extension) return undefined;
  const acting = ctx.spec.resources.forOperation(op.operationId);
  if (!acting) return undefined;
  const { resource, role, list } = acting;
  const params = ctx.request.params;
  // The resource a read, update or delete names by id is its last path parameter.
  const named = op.parameters?.filter((p) => p.in === 'path').at(-1)?.name ?? '';
  const pathKey =
    role === 'create' || role === 'list'
      ? undefined
      : 'param' in resource.key
        ? params[resource.key.param]
        : resource.key.field === 'id'
          ? params[named]
          : undefined;
  const sent = isObject(ctx.request.body) ? ctx.request.body : {};
  const base = {
    resource,
    role,
    ...(list ? { list } : {}),
    ...(pathKey !== undefined ? { pathKey } : {}),
    items: [] as Item[],
    bodyShown: is2xx(ex) && bodyShown(ctx, op, ex.status!),
    sent,
  };
  if (!is2xx(ex) || !isObject(ex.body)) return base;
  if (role === 'list') {
    const page = pageOf(base, ex, ctx, op, merchant);
    if (!page) return base;
    const data = (ex.body as Json).data as unknown[];
    base.items = data.flatMap((e) => {
      const item = isObject(e) ? itemOf(resource, e, {}) : undefined;
      return item ? [item] : [];
    });
    return { ...base, page };
  }
  if (role === 'delete') return base;
  const item = itemOf(resource, ex.body, params);
  if (item) base.items = [item];
  return base;
}
