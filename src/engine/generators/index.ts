/** Property-based generation from the spec's request schemas (see docs/architecture.md). */
export { arbitraryFromSchema } from './valid.ts';
export {
  documentedConstraints,
  CONSTRAINT_KINDS,
  CONSTRAINT_RULE,
  type Constraint,
  type ConstraintKind,
} from './constraints.ts';
export { valueAt, withValueAt } from './negative.ts';
export { edgeValidValues } from './breakers.ts';
export {
  positiveRequests,
  positiveEdgeExamples,
  undocumentedEdgeRequests,
  negativeRequests,
  anyNegativeRequest,
  describeNegative,
  requestPath,
  PATH_EXPECTATION_WHY,
  type GenOperation,
  type RequestPlan,
  type NegativeCase,
  type PlanOptions,
} from './requests.ts';
export { deriveSeed, curlFor, failureOf, formatFailure, API_KEY_VARIABLE } from './seed-replay.ts';
export { fromSpec } from './spec.ts';
export { DOCUMENT_STATES, statedFor } from './stated.ts';
export { segmentsOf } from './schema.ts';
export { edgeValues, describeEdges, type EdgeValue } from './edges.ts';
export type { JsonSchema } from './schema.ts';
