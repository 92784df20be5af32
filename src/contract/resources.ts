/**
 * The documented resources, read from the `x-resource` annotation of their schemas in
 * spec/openapi.yaml: what every resource-wide property (a value sent reads back as sent,
 * deleted means gone, owned by the key's merchant, lists walk cleanly, derived amounts) needs
 * to know of a resource. Nothing here names a resource: a schema annotated in a copy of the
 * spec is judged like the others.
 *
 *   x-resource:
 *     key: id                     # the field that names it (default id); or param:<name>, the
 *                                 # path parameter of its operations (a resource without an id)
 *     owner: merchantId           # the field naming the merchant that owns it, where the document gives one
 *     create: [createProduct]     # operations whose 2xx answer is the resource they made
 *     read: [getProduct]          # GET by the path parameter, answering the resource
 *     update: [updateProduct]     # PATCH by the path parameter, answering the resource
 *     delete: [deleteProduct]     # DELETE by the path parameter
 *     list:                       # GET answering a list envelope of it; scope: the field each
 *       - { operation: listX, scope: { parentId: path.id } }  # element shares with the request
 *     serverSet: [id, createdAt]  # fields the server sets: never expected back as a write sent them
 *     transforms: { field: why }  # fields a write sends that read back in another form (a rule judges them)
 *     decimals: [amount]          # string fields holding decimals (compared by value)
 *     gone: true | "why not"      # whether the document makes a deleted one unknown to later requests
 *     derivedFrom:                # money of another resource it is derived from
 *       { object: invoice, param: id, sameUnit: [currency], atMost: { amount: amount } }
 *     relations:                  # fields that name another resource, and which one they name
 *       - { field: invoiceId, names: path.id }            # the request's path parameter (query.<p>, body.<f>)
 *       - { field: externalReferences.*.entityId, names: key }  # the resource holding it (* : each element)
 *       - { field: externalReferences.*.entityType, names: object }  # the holding resource's object name
 *       - { field: sourceId, names: stable }              # the one its first answer named, in every answer
 *       # optional: on: [operationIds] (default: every operation of the resource)
 */
import { SpecError, type JsonObject } from './load.ts';
import type { JsonSchema, Operation } from './operations.ts';
import { inlineSchema, isObject } from './resolve.ts';

export type Role = 'create' | 'read' | 'update' | 'delete' | 'list';
export const ROLES: readonly Role[] = ['create', 'read', 'update', 'delete', 'list'];

/** What a list's elements share with its request: `path.<param>`, `query.<param>` or `key` (the key's merchant). */
export type ScopeSource = { in: 'path' | 'query'; name: string } | { in: 'key' };

export interface ResourceList {
  operation: string;
  /** Element field → where the request names its value. */
  scope: Record<string, ScopeSource>;
}

export interface DerivedFrom {
  /** The `object` name of the resource the money is derived from. */
  object: string;
  /** The path parameter of the create naming it. */
  param: string;
  /** Fields that hold the same unit on both (compared exactly where both show them). */
  sameUnit: string[];
  /** This resource's field → the source's field it may not exceed (decimals). */
  atMost: Record<string, string>;
}

/**
 * Which resource a field names: the request's path parameter, query parameter or body field; the
 * resource holding it (its key, or its object name); the one its first answer named (it never changes).
 */
export type RelationSource =
  { in: 'path' | 'query' | 'body'; name: string } | { in: 'key' } | { in: 'object' } | { in: 'stable' };

export interface Relation {
  /** Dotted path inside a representation; `*` stands for each element of an array. */
  field: string;
  names: RelationSource;
  /** Operations whose answers it is judged on (empty: every operation acting on the resource). */
  on: string[];
}

export interface Resource {
  /** The component schema it is annotated on. */
  schema: string;
  /** Its `object` name (the schema's `object` constant), when it has one. */
  object?: string;
  /** How an exchange names it: a field of its representations, or a path parameter. */
  key: { field: string } | { param: string };
  owner?: string;
  /** Operation ids by role. */
  create: string[];
  read: string[];
  update: string[];
  delete: string[];
  list: ResourceList[];
  serverSet: string[];
  transforms: Record<string, string>;
  decimals: string[];
  /** true when a deleted one is gone; otherwise why the document leaves it open. */
  gone: true | string;
  derivedFrom?: DerivedFrom;
  /** Fields that name another resource, and which one each names. */
  relations: Relation[];
  /** The schema, every $ref inlined (allOf left as written). */
  fields: JsonSchema;
}

export interface ResourceIndex {
  all: readonly Resource[];
  byObject(object: string): Resource | undefined;
  /** The resource an operation acts on, and how. */
  forOperation(operationId: string): { resource: Resource; role: Role; list?: ResourceList } | undefined;
}

const strings = (v: unknown, where: string): string[] => {
  if (v === undefined) return [];
  if (!Array.isArray(v) || v.some((x) => typeof x !== 'string'))
    throw new SpecError(`${where}: must be a list of names`);
  return v as string[];
};

function scopeOf(raw: unknown, where: string): Record<string, ScopeSource> {
  if (raw === undefined) return {};
  if (!isObject(raw))
    throw new SpecError(`${where}.scope: must map element fields to path.<param>, query.<param> or key`);
  const out: Record<string, ScopeSource> = {};
  for (const [field, source] of Object.entries(raw)) {
    const m = typeof source === 'string' ? /^(path|query)\.([A-Za-z0-9_]+)$/.exec(source) : null;
    if (source === 'key') out[field] = { in: 'key' };
    else if (m) out[field] = { in: m[1] as 'path' | 'query', name: m[2] };
    else throw new SpecError(`${where}.scope.${field}: '${String(source)}' is not path.<param>, query.<param> or key`);
  }
  return out;
}

function derivedOf(raw: unknown, where: string): DerivedFrom | undefined {
  if (raw === undefined) return undefined;
  if (!isObject(raw) || typeof raw.object !== 'string' || typeof raw.param !== 'string')
    throw new SpecError(`${where}.derivedFrom: needs object and param`);
  const atMost = raw.atMost ?? {};
  if (!isObject(atMost) || Object.values(atMost).some((v) => typeof v !== 'string'))
    throw new SpecError(`${where}.derivedFrom.atMost: must map fields to fields`);
  return {
    object: raw.object,
    param: raw.param,
    sameUnit: strings(raw.sameUnit, `${where}.derivedFrom.sameUnit`),
    atMost: atMost as Record<string, string>,
  };
}

const RELATION_SOURCE = /^(?:(path|query|body)\.([A-Za-z0-9_]+)|(key|object|stable))$/;

function relationsOf(raw: unknown, where: string): Relation[] {
  if (raw === undefined) return [];
  if (!Array.isArray(raw)) throw new SpecError(`${where}.relations: must be a list of {field, names}`);
  return raw.map((r, i) => {
    const w = `${where}.relations[${i}]`;
    if (!isObject(r) || typeof r.field !== 'string' || typeof r.names !== 'string')
      throw new SpecError(`${w}: needs field and names`);
    const m = RELATION_SOURCE.exec(r.names);
    if (!m)
      throw new SpecError(
        `${w}.names: '${r.names}' is not path.<param>, query.<param>, body.<field>, key, object or stable`,
      );
    const names: RelationSource = m[1]
      ? { in: m[1] as 'path' | 'query' | 'body', name: m[2] }
      : { in: m[3] as 'key' | 'object' | 'stable' };
    return {
      field: r.field,
      names,
      on: strings(r.on, `${w}.on`),
    };
  });
}

/** Reads one schema's annotation. */
function resourceFrom(doc: JsonObject, name: string, schema: JsonObject): Resource {
  const where = `components/schemas/${name}/x-resource`;
  const raw = schema['x-resource'];
  if (!isObject(raw)) throw new SpecError(`${where}: must be an object`);
  const { 'x-resource': _annotation, ...plain } = schema;
  const fields = inlineSchema(doc, plain) as JsonSchema;
  const object = fields.properties?.object?.const;
  const keyText = raw.key ?? 'id';
  if (typeof keyText !== 'string') throw new SpecError(`${where}.key: must be a field name or param:<name>`);
  const key = keyText.startsWith('param:') ? { param: keyText.slice('param:'.length) } : { field: keyText };
  const transforms = raw.transforms ?? {};
  if (!isObject(transforms) || Object.values(transforms).some((v) => typeof v !== 'string'))
    throw new SpecError(`${where}.transforms: must map fields to why they read back otherwise`);
  const gone = raw.gone ?? 'the document says nothing of reads after a delete';
  if (gone !== true && typeof gone !== 'string') throw new SpecError(`${where}.gone: true, or why not`);
  const list = (Array.isArray(raw.list) ? raw.list : raw.list === undefined ? [] : [raw.list]).map((l, i) => {
    const w = `${where}.list[${i}]`;
    if (typeof l === 'string') return { operation: l, scope: {} };
    if (!isObject(l) || typeof l.operation !== 'string') throw new SpecError(`${w}: needs operation`);
    return { operation: l.operation, scope: scopeOf(l.scope, w) };
  });
  if (raw.owner !== undefined && typeof raw.owner !== 'string') throw new SpecError(`${where}.owner: a field name`);
  return {
    schema: name,
    ...(typeof object === 'string' ? { object } : {}),
    key,
    ...(raw.owner ? { owner: raw.owner as string } : {}),
    create: strings(raw.create, `${where}.create`),
    read: strings(raw.read, `${where}.read`),
    update: strings(raw.update, `${where}.update`),
    delete: strings(raw.delete, `${where}.delete`),
    list,
    serverSet: strings(raw.serverSet, `${where}.serverSet`),
    transforms: transforms as Record<string, string>,
    decimals: strings(raw.decimals, `${where}.decimals`),
    gone: gone as true | string,
    ...(raw.derivedFrom === undefined ? {} : { derivedFrom: derivedOf(raw.derivedFrom, where) }),
    relations: relationsOf(raw.relations, where),
    fields,
  };
}

/** Every annotated schema of the document, checked against its operations. */
export function readResources(doc: JsonObject, operations: ReadonlyMap<string, Operation>): ResourceIndex {
  const schemas = (doc.components?.schemas ?? {}) as Record<string, JsonObject>;
  const all: Resource[] = [];
  const byOperation = new Map<string, { resource: Resource; role: Role; list?: ResourceList }>();
  for (const [name, schema] of Object.entries(schemas)) {
    if (!isObject(schema) || schema['x-resource'] === undefined) continue;
    const r = resourceFrom(doc, name, schema);
    const named = (role: Role, operationId: string, list?: ResourceList) => {
      const op = operations.get(operationId);
      if (!op) throw new SpecError(`components/schemas/${name}/x-resource.${role}: no operation ${operationId}`);
      const taken = byOperation.get(operationId);
      if (taken)
        throw new SpecError(
          `components/schemas/${name}/x-resource.${role}: ${operationId} already acts on ${taken.resource.schema}`,
        );
      // A resource named by its id (or a path parameter) is named in the path of what reads, updates or deletes it.
      const byPath = 'param' in r.key || r.key.field === 'id';
      if (byPath && role !== 'create' && role !== 'list' && !op.parameters.some((p) => p.in === 'path'))
        throw new SpecError(
          `components/schemas/${name}/x-resource.${role}: ${operationId} names no resource in its path`,
        );
      byOperation.set(operationId, { resource: r, role, ...(list ? { list } : {}) });
    };
    for (const role of ['create', 'read', 'update', 'delete'] as const) for (const id of r[role]) named(role, id);
    for (const l of r.list) named('list', l.operation, l);
    all.push(r);
  }
  return {
    all,
    byObject: (object) => all.find((r) => r.object === object),
    forOperation: (operationId) => byOperation.get(operationId),
  };
}

/** The path parameter that names the resource an operation acts on by id (its last one). */
export function idParam(op: Pick<Operation, 'parameters'>): string | undefined {
  return op.parameters.filter((p) => p.in === 'path').at(-1)?.name;
}
