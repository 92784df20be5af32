/**
 * The values a schema of spec/openapi.yaml states, read by where they are stated: an enum, a
 * constant, a default, a numeric bound, the literal prefix of an id pattern. The engine, the passive judge,
 * the CLI and the suites read these instead of writing a copy (every bound is read from the
 * schema, never a constant): test/architecture/contract-literals.test.ts fails on a copy.
 *
 * A reference names a schema:
 *   `VersionPolicy`                 components/schemas/VersionPolicy
 *   `ApiKey.scope`                  a property of a component schema (through properties and the
 *                                   members of allOf, anyOf and oneOf; `[]` steps into items)
 *   `updateAlert:query.resource`    a request's: `path.<name>`, `query.<name>`, `body` or `body.<field>`
 * Every accessor throws an Error naming the reference and what it lacks: an unknown schema,
 * operation or property, or a schema that does not state the value asked for.
 */
import type { JsonSchema } from './operations.ts';
import type { RequestSchemas } from './types.ts';
/** What reading a schema's values needs: the loader's Spec, or a check's SpecView (component schemas only). */
export interface SchemaSource {
    componentSchema(name: string): unknown;
    requestSchemas?(operationId: string): RequestSchemas | undefined;
}
/** Numeric keywords of a schema. */
export type BoundKeyword = 'minimum' | 'maximum' | 'exclusiveMinimum' | 'exclusiveMaximum' | 'minLength' | 'maxLength' | 'minItems' | 'maxItems';
/** The schema a reference names (see the module's comment); throws an Error naming the reference when there is none. */
export declare function schemaAt(source: SchemaSource, ref: string): JsonSchema;
/**
 * The values of the enum a reference names, in the document's order. With `count`, exactly that
 * many (a caller naming them by position); throws an Error naming the reference otherwise.
 */
export declare function schemaEnum(source: SchemaSource, ref: string, count?: number): readonly string[];
/** The constant the schema a reference names states (an object's name: `Item.object`); throws naming the reference when none. */
export declare function schemaConst(source: SchemaSource, ref: string): string;
/** The default the schema a reference names states; throws an Error naming the reference when it states none. */
export declare function schemaDefault(source: SchemaSource, ref: string): unknown;
/** A numeric bound (maximum, maxLength...) the schema a reference names states; throws naming the reference when absent. */
export declare function schemaBound(source: SchemaSource, ref: string, keyword: BoundKeyword): number;
/**
 * The literal prefix of an id pattern (`cus_` of `^cus_[a-zA-Z0-9]+$`): the characters after `^`
 * up to and including the first `_`. Throws naming the reference when its pattern starts otherwise.
 */
export declare function idPrefix(source: SchemaSource, ref: string): string;
