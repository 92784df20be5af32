/** The Spectral ruleset of `conform lint`: the OAS ruleset plus the document's conventions. */
import { oas } from '@stoplight/spectral-rulesets';
import * as fn from './functions/project.ts';

type Severity = 'error' | 'warn' | 'info' | 'hint';
const rule = (description: string, severity: Severity, then: unknown) => ({
  description,
  message: '{{error}}',
  severity,
  given: '$',
  resolved: false,
  then: { function: then },
});

/** Project rule code to its description; every code is proven by a test with a broken fragment. */
export const projectRules = {
  'bm-documented-operations': rule(
    'Every operation of the Endpoints section exists with its operationId, method and path.',
    'error',
    fn.documentedOperations,
  ),
  'bm-resource-object': rule(
    'Each documented resource schema has an `object` property holding its type name.',
    'error',
    fn.resourceObject,
  ),
  'bm-extension-object': rule(
    'A schema with id and createdAt (an extension resource) has an `object` property.',
    'warn',
    fn.extensionObject,
  ),
  'bm-id-patterns': rule('Id fields, path ids and body ids carry their documented pattern.', 'error', fn.idPatterns),
  'bm-bearer-security': rule('Each operation requires HTTP bearer security.', 'error', fn.bearerSecurity),
  'bm-auth-responses': rule('Each operation declares 401 and 403.', 'error', fn.authResponses),
  'bm-rate-limit-headers': rule(
    'The six rate-limited operations declare 429 with retry-after, the x-ratelimit headers on 2xx and 429, and none on 401.',
    'error',
    fn.rateLimitHeaders,
  ),
  'bm-rate-limit-headers-errors': rule(
    'Other authenticated responses of the rate-limited operations declare the x-ratelimit headers.',
    'warn',
    fn.rateLimitHeadersOnErrors,
  ),
  'bm-extension-tag': rule("Reference extensions carry the 'Reference extensions' tag.", 'error', fn.extensionTagged),
  'bm-json-bodies': rule('Request and response bodies are application/json.', 'error', fn.jsonBodies),
  'bm-error-bodies': rule(
    '4xx responses of documented operations use Error (or ValidationError on 400).',
    'error',
    fn.errorBodies,
  ),
  'bm-list-envelope': rule(
    'List schemas have a data array and pagination {limit, offset, total} integers.',
    'error',
    fn.listEnvelope,
  ),
  'bm-timestamps': rule('createdAt and updatedAt are date-time strings.', 'error', fn.timestamps),
  'bm-stated-bounds': rule(
    'Every bound the document states in prose (versions from 1, quantity >= 0, the Other constants) is a bound of the spec.',
    'error',
    fn.statedBounds,
  ),
  'bm-dependent-shapes': rule(
    'A field whose shape the document makes depend on another (price properties by model) says so with an if/then per value.',
    'error',
    fn.dependentShapes,
  ),
  'bm-resource-annotations': rule(
    "Each documented resource's schema carries x-resource naming the document's operations on it by role " +
      "(each with its role's method) and fields the schema has.",
    'error',
    fn.resourceAnnotations,
  ),
};

export const ruleset = {
  extends: [[oas, 'recommended']],
  rules: projectRules,
};

export default ruleset;
