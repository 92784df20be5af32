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
import { type JsonObject } from './load.ts';
import type { JsonSchema, Operation } from './operations.ts';
export type Role = 'create' | 'read' | 'update' | 'delete' | 'list';
export declare const ROLES: readonly Role[];
/** What a list's elements share with its request: `path.<param>`, `query.<param>` or `key` (the key's merchant). */
export type ScopeSource = {
    in: 'path' | 'query';
    name: string;
} | {
    in: 'key';
};
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
export type RelationSource = {
    in: 'path' | 'query' | 'body';
    name: string;
} | {
    in: 'key';
} | {
    in: 'object';
} | {
    in: 'stable';
};
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
    key: {
        field: string;
    } | {
        param: string;
    };
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
    forOperation(operationId: string): {
        resource: Resource;
        role: Role;
        list?: ResourceList;
    } | undefined;
}
/** Every annotated schema of the document, checked against its operations. */
export declare function readResources(doc: JsonObject, operations: ReadonlyMap<string, Operation>): ResourceIndex;
/** The path parameter that names the resource an operation acts on by id (its last one). */
export declare function idParam(op: Pick<Operation, 'parameters'>): string | undefined;
