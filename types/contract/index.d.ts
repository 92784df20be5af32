import { type JsonObject } from './load.ts';
import type { BuildOptions, Spec } from './types.ts';
export * from './rules.ts';
export { idParam, ROLES, type DerivedFrom, type Relation, type RelationSource, type Resource, type ResourceIndex, type ResourceList, type Role, type ScopeSource, } from './resources.ts';
export { SPEC_PATH, SpecError, parseDocument, readDocument } from './load.ts';
export type { JsonObject } from './load.ts';
export type { JsonSchema, Operation, Parameter, RateLimit, RequestBody, Response, ResponseHeader, } from './operations.ts';
export type { ValidationIssue, ValidationResult } from './ajv.ts';
export { compileTemplate, fillTemplate, matchTemplate, type PathParams, type PathTemplate } from './paths.ts';
export { idPrefix, schemaAt, schemaBound, schemaConst, schemaDefault, schemaEnum, type BoundKeyword, type SchemaSource, } from './schema-values.ts';
export type * from './types.ts';
/** spec/openapi.yaml, loaded and compiled once per process. */
export declare function loadSpec(): Promise<Spec>;
/** Loads another copy of a spec (tests of deliberately broken documents). Not memoised. */
export declare function loadSpecFrom(path: string, options?: BuildOptions): Promise<Spec>;
/** Builds a Spec from a parsed document: resolves operations and sets up the validators. */
export declare function buildSpec(document: JsonObject, path?: string, options?: BuildOptions): Spec;
