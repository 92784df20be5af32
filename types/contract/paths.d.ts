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
/** Path segments without the query string or fragment; empty segments dropped. */
export declare function splitPath(path: string): string[];
/** Path parameters when `path` fits the template, else undefined. */
export declare function matchTemplate(t: PathTemplate, path: string): Record<string, string> | undefined;
/**
 * Orders templates so that, at the first position where two differ, a literal segment comes
 * before a parameter: `/v2/invoices/lineItems` is tried before `/v2/invoices/{id}`.
 */
export declare function compareSpecificity(a: PathTemplate, b: PathTemplate): number;
