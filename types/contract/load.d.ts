/** Absolute path of spec/openapi.yaml, whatever the working directory. */
export declare const SPEC_PATH: string;
export declare class SpecError extends Error {
    constructor(message: string);
}
export type JsonObject = Record<string, any>;
/** Parses an OpenAPI document and checks the few things the loader relies on. */
export declare function parseDocument(text: string, origin?: string): JsonObject;
export declare function readDocument(path?: string): Promise<JsonObject>;
