/** Local $ref resolution: JSON Pointers into the document, and full inlining for plain JSON Schemas. */
import { type JsonObject } from './load.ts';
export declare function isObject(v: unknown): v is JsonObject;
/** The value at a local reference such as `#/components/schemas/Customer`. */
export declare function pointerGet(doc: JsonObject, ref: string): unknown;
/** Follows `$ref` chains on an OpenAPI object (parameter, response, header), siblings overriding. */
export declare function deref(doc: JsonObject, value: unknown, seen?: string[]): JsonObject;
/**
 * A copy of `schema` with every `$ref` replaced by its target (siblings of a `$ref`, such as
 * `default` or `description`, override the target's). Throws on circular schemas.
 */
export declare function inlineSchema(doc: JsonObject, schema: unknown, seen?: string[]): any;
/** Deep copy without any key starting with `x-` (for consumers whose ajv is not told about them). */
export declare function stripExtensions<T>(value: T): T;
