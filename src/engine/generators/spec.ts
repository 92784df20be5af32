/** Adapter from the spec loader's operations to what the generators need. */
import type { Spec } from '../../contract/index.ts';
import { GeneratorError, type GenOperation } from './requests.ts';
import type { JsonSchema } from './schema.ts';

/** The operation with its plain request schemas (path and query as object schemas, the body). */
export function fromSpec(spec: Pick<Spec, 'operation' | 'requestSchemas'>, operationId: string): GenOperation {
  const op = spec.operation(operationId);
  const schemas = spec.requestSchemas(operationId);
  if (!op || !schemas) throw new GeneratorError(`unknown operation ${operationId}`);
  const inputs: GenOperation['inputs'] = {};
  if (schemas.path) inputs.path = schemas.path as JsonSchema;
  if (schemas.query) inputs.query = schemas.query as JsonSchema;
  if (schemas.body) inputs.body = schemas.body as JsonSchema;
  return {
    operationId,
    method: op.method,
    path: op.pathTemplate,
    extension: op.extension,
    inputs,
    // "Errors in Error shape" with no status given: the `default` response, whose status is not shown.
    ...(op.responses.default ? { statusOpen: true } : {}),
  };
}
