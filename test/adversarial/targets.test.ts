/**
 * Proof against targets no scenario was written for. The whole suite runs against servers that
 * answer everything the same wrong way, and against Prism mocking spec/openapi.yaml: none may
 * exit 0, and a rule may pass only when it is on the reviewed list for that target, each with the
 * reason such a target truly satisfies it. Any other pass is a false green.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startAdversary, type AdversaryName } from './targets.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const KEY = 'sk_test_adversary_target_key_5c2e';

/** Answers that are JSON labelled application/json, 200 to everything, never a 400. */
const ALWAYS_200_JSON: Record<string, string> = {
  'CONV.CONTENT_TYPE.JSON': 'its answers are JSON labelled application/json',
  'STATUS.DOCUMENTED.ONLY': 'every answer is 200, a status the document gives each operation (any 2xx where not shown)',
  'STATUS.SUCCESS.CODE': 'its successes are 200, the code the document gives where it gives one',
  'VALIDATION.VALID_REQUEST.NOT_400': 'it never answers 400, so never to a valid request',
};

/** What Prism answers comes from spec/openapi.yaml itself: one answer at a time, it has the documented shape. */
const PRISM_SHAPES: Record<string, string> = {
  ...ALWAYS_200_JSON,
  'VALIDATION.VALID_REQUEST.NOT_400': 'Prism validates requests against the spec: a valid one is not refused',
  'STATUS.DOCUMENTED.ONLY': 'Prism answers only statuses spec/openapi.yaml declares',
  'AUTH.BEARER.REQUIRED': 'Prism enforces the bearer scheme the spec declares: no key, 401',
  'RATE.FAILED_AUTH.NO_HEADERS': 'its 401 for a missing key carries no rate headers',
  'RATE.HEADERS.PRESENT': 'it sends the rate headers the spec declares on the listed endpoints, as integers',
  'RATE.REMAINING.NON_NEGATIVE': 'the remaining counts it sends are not negative',
  'RATE.RESET.WITHIN_WINDOW': 'the reset values it sends are within the window',
  'RATE.LIMIT_HEADER.NOT_BELOW_PUBLISHED':
    'the limits it sends are at least the published ones (the spec sets the minimum)',
  'RATE.CUSTOMERS_LIST.LIMIT': 'its limit header is at least 60 and it never answers 429 early (it never answers 429)',
  'RATE.COSTS_REPORT.LIMIT': 'its limit header is at least 600 and it never answers 429 early (it never answers 429)',
  'MERCHANTS.CREATE.OBJECT': 'its merchant answer is a merchant object whose addresses hold string fields',
  'PAYMENTS.ID.PREFIX': 'its payment ids follow the pattern the spec declares',
  'CONV.OBJECT.TYPE_NAME': 'its answers carry the object name their schema fixes',
  'CONV.ID.PATTERNS': 'its ids follow the patterns the spec declares',
  'CONV.TIMESTAMP.ISO8601': 'its date-time fields are ISO 8601 strings',
  'CONV.MONEY.DECIMAL_STRING': 'its decimal fields follow the decimal pattern the spec declares',
  'ERRORS.ERROR.SHAPE': 'its error answers are the Error schema',
  'ERRORS.MESSAGE.READABLE': 'its error messages hold text',
  'ERRORS.400.BODY': 'its 400 answers are the Error or ValidationError schema',
  'ERRORS.CODE.UPPER_SNAKE': 'its error codes follow the pattern the spec declares',
  'ERRORS.ERROR_RESPONSES.SHAPE': 'its 4xx answers are Error bodies',
  'SCHEMA.RESPONSE.MATCHES': 'its success bodies are generated from their schemas',
  'SCHEMA.REQUIRED.PRESENT': 'its bodies carry the required fields of their schemas',
  // Prism validates requests against the constraints spec/openapi.yaml declares; broken, it answers the declared 400.
  'VALIDATION.PATTERN.400': 'it refuses a value breaking a declared pattern (400, or 404 for a path id)',
  'VALIDATION.TYPE.400': 'it refuses a value of the wrong declared type with 400',
  'VALIDATION.REQUIRED.400': 'it refuses a request missing a declared required field with 400',
  'VALIDATION.ENUM.400': 'it refuses a value outside a declared enum with 400',
  'VALIDATION.BOUNDS.400': 'it refuses a value outside a declared bound with 400',
};

/** What a mock of the spec truly does for any id: it answers every read with an example, never 404. */
const PRISM_READS: Record<string, string> = {
  'CONV.CREATE.READABLE':
    'it answers every read of any id with an example, never 404: the id a create answered is found, as the rule asks',
};

/** Per target: the rules it may pass, each with why. */
const MAY_PASS: Record<AdversaryName | 'prism-static' | 'prism-dynamic', Record<string, string>> = {
  'html-500': {},
  'empty-200': ALWAYS_200_JSON,
  echo: ALWAYS_200_JSON,
  'json-404': {},
  'prism-static': {
    ...PRISM_SHAPES,
    ...PRISM_READS,
    'CONV.TIMESTAMPS.LIFECYCLE':
      'it answers the same example every time: a resource it shows twice keeps its timestamps',
  },
  'prism-dynamic': { ...PRISM_SHAPES, ...PRISM_READS },
};

interface Outcome {
  code: number;
  stdout: string;
  report?: { summary: { exitCode: number }; rules: { id: string; verdict: string; scope: string }[] };
}

let work: string;
beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'conform-adversarial-'));
});
afterAll(async () => {
  if (work) await rm(work, { recursive: true, force: true });
});

async function runAgainst(name: string, baseUrl: string): Promise<Outcome> {
  const dir = join(work, name);
  const { code, stdout } = await new Promise<{ code: number; stdout: string }>((resolve) =>
    execFile(
      process.execPath,
      [join(ROOT, 'bin/conform.js'), 'run', '--base-url', baseUrl, '--report-dir', dir, '--plain'],
      { cwd: work, env: { ...process.env, CONFORM_API_KEY: KEY }, timeout: 300_000, maxBuffer: 64 * 1024 * 1024 },
      (err, out) => resolve({ code: err ? Number((err as { code?: number }).code ?? 99) : 0, stdout: out }),
    ),
  );
  const report = await readFile(join(dir, 'report.json'), 'utf8').then(JSON.parse, () => undefined);
  return { code, stdout, report };
}

function expectNoFalseGreen(name: keyof typeof MAY_PASS, o: Outcome): void {
  expect(o.code, o.stdout.slice(-1500)).not.toBe(0);
  if (!o.report) return;
  expect(o.report.summary.exitCode).toBe(o.code);
  const passed = o.report.rules.filter((r) => r.verdict === 'passed').map((r) => r.id);
  const unexplained = passed.filter((id) => !(id in MAY_PASS[name]));
  expect(unexplained, `${name}: passes no reviewed reason explains`).toEqual([]);
}

describe('servers that answer everything the same way', () => {
  for (const name of ['html-500', 'empty-200', 'echo'] as const) {
    test(`${name}: the whole suite fails it (exit 1); it passes only what it truly satisfies`, async () => {
      const target = await startAdversary(name);
      try {
        const o = await runAgainst(name, target.baseUrl);
        expect(o.code, o.stdout.slice(-1500)).toBe(1);
        expectNoFalseGreen(name, o);
        const byId = Object.fromEntries(o.report!.rules.map((r) => [r.id, r]));
        if (name !== 'html-500') return;
        // Every documented operation was sent without a bearer: more findings than a scenario keeps.
        expect(byId['AUTH.BEARER.REQUIRED']).toMatchObject({ verdict: 'failed' });
        expect((byId['AUTH.BEARER.REQUIRED'] as unknown as { failureCount: number }).failureCount).toBeGreaterThan(20);
        expect(byId['AUTH.401.SHAPE'].verdict).toBe('failed');
        expect(byId['CONV.CONTENT_TYPE.JSON'].verdict).toBe('failed');
        expect(o.stdout).toMatch(/^FAILED \(exit 1\): judged \d+ of \d+ rules \(0 passed/m);
      } finally {
        await target.close();
      }
    }, 320_000);
  }

  test('json-404: its base URL is refused before the run (exit 2, one line naming what to check)', async () => {
    const target = await startAdversary('json-404');
    try {
      const o = await runAgainst('json-404', target.baseUrl);
      expect(o.code).toBe(2);
      // The reports say why, for the CI job's report steps: nothing judged, verdict error.
      expect(o.report?.summary.exitCode).toBe(2);
      expect(o.report?.rules.filter((r) => r.verdict === 'passed')).toEqual([]);
      expectNoFalseGreen('json-404', o);
    } finally {
      await target.close();
    }
  }, 120_000);
});

/** Prism on 127.0.0.1, a free port, against spec/openapi.yaml. */
function startPrism(dynamic: boolean): Promise<{ baseUrl: string; child: ChildProcess }> {
  const args = ['mock', '-h', '127.0.0.1', '-p', '0', ...(dynamic ? ['--dynamic'] : []), 'spec/openapi.yaml'];
  const child = spawn(process.execPath, [join(ROOT, 'node_modules/.bin/prism'), ...args], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return new Promise((resolve, reject) => {
    let out = '';
    const onData = (chunk: Buffer) => {
      out += chunk.toString();
      const m = /Prism is listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
      if (m) resolve({ baseUrl: m[1], child });
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.on('exit', (code) => reject(new Error(`prism exited (${code}) before listening:\n${out.slice(-2000)}`)));
  });
}

describe('a Prism mock of spec/openapi.yaml, the whole suite', () => {
  for (const kind of ['static', 'dynamic'] as const) {
    test(`prism ${kind}: never exit 0; only the one-answer shape rules it truly meets pass`, async () => {
      const prism = await startPrism(kind === 'dynamic');
      try {
        const o = await runAgainst(`prism-${kind}`, prism.baseUrl);
        expectNoFalseGreen(`prism-${kind}`, o);
        // Nothing that needs state (a resource read back, a change kept, a limit enforced) passes on a mock.
        const stateful = o.report!.rules.filter(
          (r) => r.verdict === 'passed' && /^(STATE|ITEMS|MIGRATION|CUSTOMERS|WEBHOOKS)\./.test(r.id),
        );
        expect(stateful.map((r) => r.id)).toEqual([]);
      } finally {
        const exited = new Promise((r) => prism.child.once('exit', r));
        prism.child.kill('SIGTERM');
        await exited;
      }
    }, 320_000);
  }
});
