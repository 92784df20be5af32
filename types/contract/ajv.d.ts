/** ajv 2020-12 (strict) set up for the spec's schemas: component registry, vocabulary, error mapping. */
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import type { JsonObject } from './load.ts';
/** $id under which components/schemas are registered as $defs. */
export declare const COMPONENTS_ID = "urn:billing-conform:openapi-components";
export interface ValidationIssue {
    /** JSON Pointer of the offending value ('' for the root); for `required`, of the missing property. */
    path: string;
    message: string;
    keyword?: string;
}
export interface ValidationResult {
    valid: boolean;
    errors: ValidationIssue[];
}
/** Every `x-*` key used anywhere in the document, so strict mode accepts them. */
export declare function extensionKeywords(doc: unknown, found?: Set<string>): Set<string>;
/** Rewrites `#/components/schemas/X` references to the registered components schema. */
export declare function rewriteRefs(schema: unknown): any;
export interface AjvOptions {
    /** Coerce strings to integer/number/boolean and fill defaults (parameters). */
    coerce?: boolean;
    /**
     * Check every schema against the JSON Schema 2020-12 meta-schema before compiling it.
     * Compiling the meta-schema costs each ajv instance about 40 ms, so a run's lazy builds
     * skip it; eager builds and the spec tests check (strict mode still refuses unknown keywords).
     */
    checkSchemas?: boolean;
}
/** A strict ajv with formats, the document's keywords and its component schemas registered. */
export declare function createAjv(doc: JsonObject, options?: AjvOptions): Ajv2020;
/** Compiles a schema written with OpenAPI `#/components/schemas/...` references. */
export declare function compile(ajv: Ajv2020, schema: unknown): ValidateFunction;
/** Compiles one component by name (uses ajv's own cache). */
export declare function componentValidator(ajv: Ajv2020, name: string): ValidateFunction | undefined;
export declare function toIssues(errors: ErrorObject[] | null | undefined): ValidationIssue[];
export declare function run(validate: ValidateFunction, value: unknown): ValidationResult;
