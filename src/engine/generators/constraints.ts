/** The documented constraints of a request schema, one entry per constraint a negative case can break. */
import { isUndocumented, pointerOf, typesOf, type JsonSchema, type Location } from './schema.ts';

/** The kinds of constraint the interface document states; nothing else is ever broken. */
export const CONSTRAINT_KINDS = [
  'type',
  'required',
  'enum',
  'pattern',
  'maxLength',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
] as const;
export type ConstraintKind = (typeof CONSTRAINT_KINDS)[number];

/** The VALIDATION rule each kind of broken constraint is judged under. */
export const CONSTRAINT_RULE: Record<ConstraintKind, string> = {
  type: 'VALIDATION.TYPE.400',
  required: 'VALIDATION.REQUIRED.400',
  enum: 'VALIDATION.ENUM.400',
  pattern: 'VALIDATION.PATTERN.400',
  maxLength: 'VALIDATION.BOUNDS.400',
  minimum: 'VALIDATION.BOUNDS.400',
  maximum: 'VALIDATION.BOUNDS.400',
  exclusiveMinimum: 'VALIDATION.BOUNDS.400',
  exclusiveMaximum: 'VALIDATION.BOUNDS.400',
};

export interface Constraint {
  location: Location;
  /** JSON Pointer of the value broken (for `required`: of the property left out). */
  pointer: string;
  kind: ConstraintKind;
  /** The constraint as written, e.g. "maxLength 255", "pattern ^itm_[a-zA-Z0-9]+$", "required". */
  label: string;
  /** The schema node carrying the constraint (for `required`: the object). */
  schema: JsonSchema;
}

/**
 * Every documented constraint of a location's schema (an object schema whose properties are
 * the path or query parameters, or the body schema). Undocumented parts (`x-not-shown`,
 * `x-reference-choice`, `x-extension`) and their subtrees yield nothing, except the pointers
 * listed in `stated`: places the document does state although an ancestor carries a note
 * (e.g. the field types of POST /v0/billingSchedules, whose required fields are not shown).
 * Unions are skipped, since breaking one branch need not break the whole.
 */
export function documentedConstraints(
  schema: JsonSchema | undefined,
  location: Location,
  stated: string[] = [],
): Constraint[] {
  const out: Constraint[] = [];
  if (schema) walk(schema, [], location, out, true, stated);
  return out;
}

function walk(
  schema: JsonSchema,
  segments: string[],
  location: Location,
  out: Constraint[],
  parentDocumented: boolean,
  stated: string[],
): void {
  if (schema.anyOf || schema.oneOf || schema.allOf) return;
  const pointer = pointerOf(segments);
  const documented = stated.includes(pointer) || (parentDocumented && !isUndocumented(schema));
  const statedBelow = stated.some((p) => p.startsWith(`${pointer}/`));
  if (!documented && !statedBelow) return;
  const types = typesOf(schema);
  const add = (kind: ConstraintKind, label: string) => {
    if (documented) out.push({ location, pointer, kind, label, schema });
  };
  const isRoot = segments.length === 0;

  if (!isRoot) {
    if (schema.enum !== undefined || schema.const !== undefined) {
      // A wrong-typed value would break the enum as well: the enum case covers it.
      add(
        'enum',
        schema.const !== undefined
          ? `const ${JSON.stringify(schema.const)}`
          : `enum ${schema.enum!.map((v) => JSON.stringify(v)).join('|')}`,
      );
    } else if (typeBreakable(types, location)) {
      add('type', `type ${types.join('|')}`);
    }
  }
  if (types.includes('string') && schema.enum === undefined && schema.const === undefined) {
    if (schema.pattern !== undefined) add('pattern', `pattern ${schema.pattern}`);
    // Breaking maxLength while keeping a pattern is not done generically; no documented field has both.
    else if (schema.maxLength !== undefined) add('maxLength', `maxLength ${schema.maxLength}`);
  }
  if ((types.includes('integer') || types.includes('number')) && schema.enum === undefined) {
    if (schema.minimum !== undefined) add('minimum', `minimum ${schema.minimum}`);
    if (schema.maximum !== undefined) add('maximum', `maximum ${schema.maximum}`);
    if (schema.exclusiveMinimum !== undefined) add('exclusiveMinimum', `exclusiveMinimum ${schema.exclusiveMinimum}`);
    if (schema.exclusiveMaximum !== undefined) add('exclusiveMaximum', `exclusiveMaximum ${schema.exclusiveMaximum}`);
  }
  if (types.includes('object') && schema.properties) {
    // Path parameters are part of the route: leaving one out is another URL, not a bad request.
    if (location !== 'path' && documented) {
      for (const key of schema.required ?? []) {
        const prop = schema.properties[key];
        if (prop && !isUndocumented(prop))
          out.push({ location, pointer: pointerOf([...segments, key]), kind: 'required', label: 'required', schema });
      }
    }
    for (const [key, prop] of Object.entries(schema.properties))
      walk(prop, [...segments, key], location, out, documented, stated);
  }
  if (types.includes('array') && schema.items && location === 'body')
    walk(schema.items, [...segments, '0'], location, out, documented, stated);
}

/**
 * Whether a wrong JSON type can be sent. Path and query values travel as strings, so a
 * parameter that admits strings cannot get a wrong type; numbers and booleans can.
 */
function typeBreakable(types: string[], location: Location): boolean {
  if (types.length === 0) return false;
  if (location === 'body')
    return ['string', 'number', 'integer', 'boolean', 'object', 'array'].some(
      (t) => !types.includes(t) && !(t === 'integer' && types.includes('number')),
    );
  return !types.includes('string') && types.some((t) => t === 'integer' || t === 'number' || t === 'boolean');
}
