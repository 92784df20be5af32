/** A fault of the generated catalog: a catalog fault plus where it came from in the spec. */
import type { CatalogFault } from '../catalog/types.ts';

export const GENERATED_KINDS = [
  'drop',
  'type',
  'pattern',
  'enum',
  'format',
  'range',
  'patch-unapplied',
  'patch-wipes-unsent',
  'bound-strict',
  'bound-lax',
  'cross-merchant',
  'intermittent',
  'benign-omit-optional',
  'benign-extra-fields',
  'benign-transport',
] as const;
export type GeneratedKind = (typeof GENERATED_KINDS)[number];

export interface GeneratedFault extends CatalogFault {
  kind: GeneratedKind;
  /** The documented operation it alters (absent: every operation answering `status`). */
  operationId?: string;
  /** The response status key whose body it alters (`2XX`, `200`, `404`...). */
  status?: string;
  /** The field, as `a.b[].c`. */
  field?: string;
}

export function isGenerated(f: CatalogFault): f is GeneratedFault {
  return typeof (f as GeneratedFault).kind === 'string';
}
