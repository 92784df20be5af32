/** JSON Schema of conform.config.yaml. */
export const ENV_NAME = '^[A-Z_][A-Z0-9_]*$';

export const configSchema = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  type: 'object',
  additionalProperties: false,
  properties: {
    baseUrl: { type: 'string', pattern: '^https?://' },
    sandbox: { type: 'boolean' },
    referenceServer: { description: "The target is this project's reference server (conform serve): its own choices (rules of kind reference) are judged too", type: 'boolean' },
    apiKeyEnv: { type: 'string', pattern: ENV_NAME },
    secondKeyEnv: { type: 'string', pattern: ENV_NAME },
    otherMerchantKeyEnv: { type: 'string', pattern: ENV_NAME },
    merchantId: { type: 'string', minLength: 1 },
    destructive: { type: 'boolean' },
    fixtures: {
      type: 'object',
      additionalProperties: false,
      properties: {
        strategy: { enum: ['reference', 'file', 'module', 'none'] },
        file: { type: 'string', minLength: 1 },
        module: { type: 'string', minLength: 1 },
      },
    },
    profile: { enum: ['quick', 'full'] },
    seed: { type: 'integer', minimum: 0, maximum: 2147483647 },
    reportDir: { type: 'string', minLength: 1 },
    timeoutMs: { type: 'integer', minimum: 100, maximum: 600000 },
    concurrency: { type: 'integer', minimum: 1, maximum: 32 },
    allowUnjudged: {
      description: 'Accept rules left unjudged for a missing fixture or credential: true for all, or a list of rule ids and families',
      oneOf: [{ type: 'boolean' }, { type: 'array', items: { type: 'string', pattern: '^[A-Z][A-Z0-9_]*(\\.[A-Z0-9_]+){0,2}$' }, uniqueItems: true }],
    },
    minJudged: { description: 'Accept such gaps when at least this many applicable rules were judged', type: 'integer', minimum: 0 },
  },
} as const;

/** Keys that would hold a literal secret: refused with a pointer to the *Env form. */
export const LITERAL_KEY_FIELDS: Record<string, string> = {
  apiKey: 'apiKeyEnv',
  key: 'apiKeyEnv',
  token: 'apiKeyEnv',
  secondKey: 'secondKeyEnv',
  otherMerchantKey: 'otherMerchantKeyEnv',
};
