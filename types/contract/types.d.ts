/** The shape of the loaded spec (see index.ts). */
import type { ValidationResult } from './ajv.ts';
import type { JsonObject } from './load.ts';
import type { JsonSchema, Operation, Response } from './operations.ts';
import type { PathParams } from './paths.ts';
import type { RuleIndex } from './rules.ts';
import type { ResourceIndex } from './resources.ts';
export type ParameterLocation = 'path' | 'query';
/** Plain JSON Schemas (every $ref inlined) of one operation's inputs. */
export interface RequestSchemas {
    /** Object schema whose properties are the path parameters. */
    path?: JsonSchema;
    /** Object schema whose properties are the query parameters. */
    query?: JsonSchema;
    /** Schema of the JSON body. */
    body?: JsonSchema;
    /** When false, an absent body is accepted. */
    bodyRequired: boolean;
}
export interface RequestSchemaOptions {
    /** Drop every `x-*` key (for an ajv that was not told about them, e.g. Fastify's). */
    stripExtensions?: boolean;
}
export interface ParameterValidation extends ValidationResult {
    /** The values after coercion (strings to integer/number/boolean) and defaults. */
    values: Record<string, unknown>;
}
export interface PathMatch {
    operation: Operation;
    params: Record<string, string>;
}
export interface Spec {
    /** The parsed OpenAPI document, as written (references not resolved). */
    document: JsonObject;
    /** info.version of the document. */
    version: string;
    /** Where the document was read from. */
    path: string;
    /** Operations by operationId. */
    operations: Map<string, Operation>;
    /** The documented resources (`x-resource` on their schemas) and the operations acting on each. */
    resources: ResourceIndex;
    /** Names of components/schemas. */
    schemaNames: string[];
    operation(operationId: string): Operation | undefined;
    /**
     * The operation's path: its template with each `{name}` replaced by
     * `encodeURIComponent(String(params[name]))`, no query string. Throws an Error naming the
     * operation when it is unknown, a path parameter is missing, or `params` has one the template lacks.
     */
    pathFor(operationId: string, params?: PathParams): string;
    /** The operation whose method and path template fit; literal segments win over parameters. */
    findOperation(method: string, concretePath: string): Operation | undefined;
    /** Like findOperation, with the decoded path parameters. */
    matchPath(method: string, concretePath: string): PathMatch | undefined;
    /** The declared response for a status: exact code, then range key ('4XX'), then 'default'. */
    responseFor(operationId: string, status: number | string): Response | undefined;
    /** Body against the schema of responseFor(status); valid when that response declares no body. */
    validateResponseBody(operationId: string, status: number | string, body: unknown): ValidationResult;
    /** Body against the request body schema; `undefined` stands for an absent body. */
    validateRequestBody(operationId: string, body: unknown): ValidationResult;
    /** Parameters of one location; string values are coerced per schema and defaults filled. */
    validateParameters(operationId: string, location: ParameterLocation, values: Record<string, unknown>): ParameterValidation;
    /** A value against components/schemas/<componentName>. */
    validateSchema(componentName: string, value: unknown): ValidationResult;
    /** components/schemas/<name> with every $ref inlined. */
    componentSchema(name: string): JsonSchema | undefined;
    requestSchemas(operationId: string, options?: RequestSchemaOptions): RequestSchemas | undefined;
    /** spec/rules.yaml (see rules.ts). */
    rules(): Promise<RuleIndex>;
    /** Compiles every schema now (validators otherwise compile once, on first use); throws SpecError on a broken one. */
    compileAll(): void;
}
export interface BuildOptions {
    /**
     * Check every schema against the meta-schema and compile it now, so that a broken one fails
     * here (default: compiled on first use, a broken one failing then).
     */
    eager?: boolean;
}
