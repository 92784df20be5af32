/** Property-based generation from the spec's request schemas (see docs/architecture.md). */
export { arbitraryFromSchema, type ValueOptions } from './valid.ts';
export { documentedConstraints, CONSTRAINT_KINDS, CONSTRAINT_RULE, type Constraint, type ConstraintKind } from './constraints.ts';
export { breakingArbitrary, valueAt, withValueAt } from './negative.ts';
export { edgeBreakingValues, edgeValidValues } from './breakers.ts';
export {
  positiveRequests,
  positiveEdgeExamples,
  withInput,
  negativeRequests,
  anyNegativeRequest,
  isGeneratable,
  describeNegative,
  requestPath,
  GeneratorError,
  PATH_EXPECTATION_WHY,
  type GenOperation,
  type RequestPlan,
  type NegativeCase,
  type NegativePlan,
  type PlanOptions,
} from './requests.ts';
export { deriveSeed, curlFor, failureOf, formatFailure, API_KEY_VARIABLE, type GeneratedFailure } from './replay.ts';
export { fromSpec } from './spec.ts';
export { DOCUMENT_STATES, statedFor } from './stated.ts';
export { segmentsOf, pointerOf } from './schema.ts';
export type { JsonSchema, Location } from './schema.ts';
