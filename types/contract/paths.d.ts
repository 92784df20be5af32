/** Matching concrete request paths against OpenAPI path templates. */
export interface PathTemplate {
    template: string;
    segments: Array<{
        literal: string;
    } | {
        param: string;
    }>;
}
export declare function compileTemplate(template: string): PathTemplate;
/** Values of path parameters, by name, for `fillTemplate` and `Spec.pathFor`. */
export type PathParams = Record<string, string | number>;
/**
 * The template with each `{name}` replaced by `encodeURIComponent(String(params[name]))`. Throws
 * an Error starting with `where` when a parameter of the template is missing (absent, undefined
 * or null) or `params` names one the template lacks.
 */
export declare function fillTemplate(template: string, params?: PathParams, where?: string): string;
/** Path segments without the query string or fragment; empty segments dropped. */
export declare function splitPath(path: string): string[];
/** Path parameters when `path` fits the template, else undefined. */
export declare function matchTemplate(t: PathTemplate, path: string): Record<string, string> | undefined;
/**
 * Orders templates so that, at the first position where two differ, a literal segment comes
 * before a parameter: `/v2/invoices/lineItems` is tried before `/v2/invoices/{id}`.
 */
export declare function compareSpecificity(a: PathTemplate, b: PathTemplate): number;
