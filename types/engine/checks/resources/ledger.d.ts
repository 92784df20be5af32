/**
 * What a stream of exchanges has shown so far, for the resource judges: which merchant each
 * credential acts for, who owns each resource the run made or was given, what was deleted,
 * the last representation of each resource, and the walks of every list. The stream
 * (stream.ts) reads each exchange once into a `Shown` (shown.ts), lets the judges compare it
 * with the ledger, then records it here. Bounded: a long proxy session keeps the newest.
 */
import type { Resource, ResourceList, Role } from '../../../contract/index.ts';
import type { Exchange } from '../../types.ts';
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
export declare const keyOf: (resource: Resource, key: string) => string;
/** A Map that forgets its oldest entries past `max`. */
declare class Capped<K, V> extends Map<K, V> {
    private readonly max;
    constructor(max?: number);
    set(key: K, value: V): this;
}
export interface Timing {
    credential?: string;
    startMs: number;
    endMs: number;
}
export declare class Ledger {
    /** The merchant a credential acts for ('primary' is the run's own key). */
    readonly merchantOf: Map<string, string>;
    /** The merchant that owns a resource id, as the run made or was given it, and its kind (`object` name) when known. */
    readonly ownerOf: Capped<string, {
        merchant: string;
        object?: string;
    }>;
    /** What the run was told of resources it holds (a fixture's invoice amounts): object → id → fields. */
    readonly facts: Map<string, Capped<string, Json>>;
    /** Resources whose DELETE succeeded: key → when the answer came. */
    readonly deleted: Capped<string, {
        endMs: number;
        status: number;
    }>;
    /** The last representation of each resource seen, and when. */
    readonly last: Capped<string, {
        body: Json;
        endMs: number;
        resource: Resource;
    }>;
    /** Complete walks, newest last. */
    readonly walks: Walk[];
    private readonly unrelated;
    private readonly open;
    /** Declares that neither merchant may manage the other (the fixtures' unmanaged merchant). */
    declareUnrelated(a: string, b: string): void;
    isUnrelated(a: string, b: string): boolean;
    fact(object: string, id: string, fields: Json): void;
    /** The walk a list page belongs to (before the judges see it), and whether the page completed it. */
    addPage(ex: Exchange, shown: Shown, t: Timing): Walk | undefined;
    /** Records what the exchange showed, after the judges compared it with what came before. */
    learn(shown: Shown, ex: Exchange, t: Timing): void;
}
export {};
