/** Operation objects built from the document's paths: parameters, bodies, responses, notes. */
import { type JsonObject } from './load.ts';
export type JsonSchema = Record<string, any>;
export declare const METHODS: readonly ["get", "put", "post", "delete", "options", "head", "patch", "trace"];
export interface RateLimit {
    limit: number;
    windowSeconds: number;
    bucket: 'merchant' | 'subscription';
}
export interface Parameter {
    name: string;
    in: 'path' | 'query' | 'header' | 'cookie';
    required: boolean;
    /** Inlined JSON Schema (no $ref). */
    schema: JsonSchema;
    description?: string;
    /** The document does not show this parameter; the reference server chose it. */
    referenceChoice?: string;
    notShown?: string;
}
export interface RequestBody {
    required: boolean;
    contentType: string;
    /** Inlined JSON Schema (no $ref). */
    schema: JsonSchema;
    /** As written, possibly a `$ref` into components/schemas. */
    rawSchema: JsonSchema;
    referenceChoice?: string;
    notShown?: string;
}
export interface ResponseHeader {
    name: string;
    required: boolean;
    schema: JsonSchema;
    description?: string;
}
export interface Response {
    /** '200', '2XX', '404', 'default'... */
    key: string;
    description: string;
    contentType?: string;
    /** Inlined JSON Schema of the body; absent when the response declares no content. */
    schema?: JsonSchema;
    /** As written (e.g. `{ $ref: '#/components/schemas/Customer' }`). */
    rawSchema?: JsonSchema;
    /** Component name when the body schema is a plain `$ref` to components/schemas. */
    schemaName?: string;
    /** Lower-case header name to its declaration. */
    headers: Record<string, ResponseHeader>;
    /** Lower-case names of the declared headers. */
    headerNames: string[];
    /** Names of the headers declared `required: true`. */
    requiredHeaders: string[];
    notShown?: string;
    referenceChoice?: string;
}
export interface Operation {
    operationId: string;
    /** Upper case: GET, POST... */
    method: string;
    pathTemplate: string;
    summary: string;
    description?: string;
    tags: string[];
    /** `x-extension: reference`: never judged on a target. */
    extension: boolean;
    /** `x-rate-limit`: the six listed rate-limited operations. */
    rateLimit?: RateLimit;
    /** Security scheme names required (operation level, else global). */
    security: string[];
    parameters: Parameter[];
    requestBody?: RequestBody;
    responses: Record<string, Response>;
    /** `x-not-shown` notes of the operation, its body, parameters and responses. */
    notShown: string[];
    /** The operation-level `x-reference-choice`, when any. */
    referenceChoice?: string;
}
/** Every operation of the document, keyed by operationId. */
export declare function buildOperations(doc: JsonObject): Map<string, Operation>;
/** The declared response for a status: the exact code, then its range key ('4XX'), then 'default'. */
export declare function pickResponse(op: Operation, status: number | string): Response | undefined;
