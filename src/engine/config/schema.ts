/** JSON Schema of conform.config.yaml. */
export const ENV_NAME = '^[A-Z_][A-Z0-9_]*$';

export const configSchema = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  type: 'object',
  additionalProperties: false,
  properties: {
    baseUrl: {
      type: 'string',
      pattern: '^https?://',
      description:
        'Base URL of the target (your sandbox deployment). Without one, the run tests the bundled reference server. ' +
        '--base-url overrides it.',
    },
    sandbox: {
      type: 'boolean',
      description:
        'The target is a sandbox: destructive scenarios (deletes, refunds, archiving) may run there. Default false; --sandbox sets it.',
    },
    referenceServer: {
      type: 'boolean',
      description:
        "The target is this project's reference server (conform serve): its own choices (rules of kind reference) are judged too. " +
        'Default false (always true for the bundled reference).',
    },
    apiKeyEnv: {
      type: 'string',
      pattern: ENV_NAME,
      description:
        'Name of the environment variable holding the primary API key (never the key itself). ' +
        'Default: CONFORM_API_KEY. --api-key overrides it.',
    },
    secondKeyEnv: {
      type: 'string',
      pattern: ENV_NAME,
      description: 'Name of the environment variable holding a second API key of the same merchant.',
    },
    otherMerchantKeyEnv: {
      type: 'string',
      pattern: ENV_NAME,
      description:
        'Name of the environment variable holding an API key of another merchant (for cross-merchant isolation).',
    },
    merchantId: {
      type: 'string',
      minLength: 1,
      description: 'Merchant id of the primary key, when the target cannot tell it. Reports name it.',
    },
    destructive: {
      type: 'boolean',
      description:
        'Whether destructive scenarios may run, overriding the default ' +
        '(allowed on the bundled reference and on sandbox targets, off elsewhere).',
    },
    fixtures: {
      type: 'object',
      additionalProperties: false,
      description: 'Where the resources scenarios need come from (docs/fixtures.md).',
      properties: {
        strategy: {
          enum: ['reference', 'file', 'module', 'command', 'none'],
          description:
            'reference: created through the reference extension endpoints; file: ids read from a YAML file; ' +
            'module: your own fixtures module; command: your own program serving fixtures over JSON lines; ' +
            'none: scenarios needing fixtures are not judged. ' +
            'Default: decided by probing the target.',
        },
        file: {
          type: 'string',
          minLength: 1,
          description: 'The fixtures file (strategy file), relative to this config file.',
        },
        module: {
          type: 'string',
          minLength: 1,
          description:
            'The fixtures module (strategy module), a TypeScript or JavaScript file relative to this config file.',
        },
        command: {
          // One type list, not oneOf: a mistake then reads as one problem, not one per branch.
          type: ['string', 'array'],
          minLength: 1,
          minItems: 1,
          items: { type: 'string', minLength: 1 },
          description:
            'The program serving the fixtures (strategy command), in any language, speaking JSON lines on stdin/stdout: ' +
            'a command line run by the shell, or a list of its arguments run without one; in the folder of this config file.',
        },
      },
    },
    profile: {
      enum: ['quick', 'full'],
      description: 'How deep to go: quick (default) or full (more generated cases). --profile overrides it.',
    },
    seed: {
      type: 'integer',
      minimum: 0,
      maximum: 2 ** 31 - 1,
      description:
        'Seed of the generated cases; the same seed repeats the same run. Default: random, printed on every run. --seed overrides it.',
    },
    reportDir: {
      type: 'string',
      minLength: 1,
      description:
        'Where the reports go, relative to this config file. Default: reports/<run-id>. --report-dir overrides it.',
    },
    timeoutMs: {
      type: 'integer',
      minimum: 100,
      maximum: 600000,
      description:
        'Timeout of one request to the target, in milliseconds. Default 15000. --request-timeout overrides it.',
    },
    scenarioTimeoutMs: {
      type: 'integer',
      minimum: 1000,
      maximum: 3600000,
      description:
        'Time one scenario may take, in milliseconds; past it the scenario ends with its rules not judged ' +
        '(target too slow, with the latency measured). Default 180000. --scenario-timeout overrides it.',
    },
    runTimeoutMs: {
      type: 'integer',
      minimum: 10000,
      maximum: 86400000,
      description:
        'Time the whole run may take, in milliseconds; scenarios that would start or run past it end not judged ' +
        '(target too slow). Default 1800000 (30 minutes). --run-timeout overrides it.',
    },
    concurrency: {
      type: 'integer',
      minimum: 1,
      maximum: 32,
      description: 'How many suites run at once (worker processes). Default: one per core, at most 4.',
    },
    allowUnjudged: {
      description:
        'Accept applicable rules left unjudged, whatever the reason (exit 3 otherwise): ' +
        'true for all, or a list of rule ids and families. --allow-unjudged adds to it.',
      oneOf: [
        { type: 'boolean' },
        {
          type: 'array',
          items: { type: 'string', pattern: '^[A-Z][A-Z0-9_]*(\\.[A-Z0-9_]+){0,2}$' },
          uniqueItems: true,
        },
      ],
    },
    minJudged: {
      type: 'integer',
      minimum: 0,
      description: 'Accept such gaps when at least this many applicable rules were judged. --min-judged overrides it.',
    },
    expectedFailures: {
      type: 'array',
      description:
        'Known differences of the target, each limited to one rule part on one documented operation ' +
        '(and one field where it applies), with its reason: a failure an entry covers fails nothing and is ' +
        'reported apart with the reason; an entry whose rule part was judged there without failing is stale ' +
        'and fails the run until it is removed.',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['rule', 'operation', 'reason'],
        properties: {
          rule: {
            type: 'string',
            pattern: '^[A-Z][A-Z0-9_]*(\\.[A-Z0-9_]+){2}(#[a-z0-9-]+)?$',
            description: 'The rule (RULE.ID), with #part for a rule of several parts (RULE.ID#part).',
          },
          operation: {
            type: 'string',
            minLength: 1,
            description: 'The documented operation (operationId, e.g. updateAlert) the failure is limited to.',
          },
          field: {
            type: 'string',
            minLength: 1,
            description:
              "A field of that operation's request or answer (notifyPeriod, limit.amount or /limit/amount): " +
              'only failures naming it are covered.',
          },
          reason: {
            type: 'string',
            minLength: 1,
            pattern: '\\S',
            description: 'Why the target differs (shown beside every failure it covers). Required.',
          },
        },
      },
    },
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
