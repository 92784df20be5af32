/**
 * The values spec/openapi.yaml states are read from it, never copied: the enum values of its
 * schemas (a subscription's versionPolicy, a key's scope, a price's model...), the error
 * categories (the `error` an Error schema states, and ERRORS.CATEGORY.MATCHES_STATUS's table)
 * and the error codes its text names (INVOICE_NOT_DRAFT...), the literal prefixes of its id
 * patterns (`cus_`), the resources' object names (the const of an `object` property: `list`,
 * `subscription`) and its numeric bounds (maxLength 255, a limit's maximum 100). The code
 * reads them through src/contract/schema-values.ts (schemaEnum, schemaConst, schemaBound,
 * idPrefix...) and the named reads of src/engine/predicates.ts (versionPolicies, apiKeyScopes,
 * objectNameOf...).
 *
 * Scans the judges and what drives them (src/engine, src/passive, src/cli, suites/; the
 * reference server, src/reference, keeps its own constants as any vendor's server does) through
 * the TypeScript parser: a string or template literal equal to an enum value, a category or an
 * object name, one holding a snake_case enum value, a category or a code inside its text (an
 * object name only as a whole literal), one holding an id prefix
 * (or a regular expression starting with one), a number equal to an uncommon bound (or a text
 * naming one: rule part ids such as `#accepts-255` aside), and an
 * upper bound written as the value of the property it bounds (`limit: 100`). Words that are
 * also the project's own vocabulary (the `full` run profile, the `item` fixture, the `merchant`
 * rate-limit bucket) are listed in ALLOWED with why, file by file; a new literal fails, and so
 * does an entry no longer found.
 */
import { readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, test } from 'vitest';
import { tsFiles } from './walls.ts';
import { loadRules, loadSpec, readDocument, schemaEnum, type JsonObject } from '../../src/contract/index.ts';
import { tableOf } from '../../src/engine/predicates.ts';
import { FIXTURE_DECLARATIONS, FILE_KEYS } from '../../src/engine/fixtures/methods.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SCANNED = ['src/engine', 'src/passive', 'src/cli', 'suites'];

export interface ContractValues {
  /** Enum values, error categories and object names: a literal equal to one is a copy (value → where the document states it). */
  values: Map<string, string>;
  /** snake_case values, categories and codes: distinctive enough to be found inside any text too. */
  words: Map<string, string>;
  /** The literal prefixes of id patterns (`cus_` → CustomerId). */
  prefixes: Map<string, string>;
  /** Bounds no code has another reason to write (255, 2147483647): found as any number. */
  numbers: Map<number, string>;
  /** Upper bounds by the name of what they bound (`limit` → 100): a property or variable of that name holding it is a copy. */
  named: Map<string, Map<number, string>>;
}

/** Numbers too common to tell a copy from another use (counts, percentages, seconds): only found by name. */
const COMMON_NUMBERS = new Set([0, 1, 2, 3, 5, 6, 10, 30, 60, 100, 1000]);
const BOUNDS = [
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'minLength',
  'maxLength',
  'minItems',
  'maxItems',
];
const UPPER = new Set(['maximum', 'exclusiveMaximum', 'maxLength', 'maxItems']);

/**
 * UPPER_SNAKE words of the document's text that are no error code, each with why. An entry the
 * document no longer holds is stale.
 */
export const NOT_CODES: Record<string, string> = {
  UPPER_SNAKE_CASE: "the name of the form a code takes (Error.code's description), not a code",
  API_KEY: 'the placeholder of the bearer credential (`Authorization: Bearer <API_KEY>`)',
};

/** UPPER_SNAKE words of the document's text, rule ids (dotted) left out. */
function upperSnakeWords(text: string): string[] {
  return [...text.matchAll(/(?<![A-Za-z0-9_.])[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+(?![A-Za-z0-9_]|\.[A-Z])/g)].map(
    (m) => m[0],
  );
}

const squash = (name: string) => name.replace(/[_-]/g, '').toLowerCase();

/** What the document states, read from its parsed text (every schema, inline or a component, every description). */
export function contractValuesOf(document: JsonObject, categories: readonly string[]): ContractValues {
  const c: ContractValues = {
    values: new Map(),
    words: new Map(),
    prefixes: new Map(),
    numbers: new Map(),
    named: new Map(),
  };
  const value = (v: string, where: string) => {
    if (!c.values.has(v)) c.values.set(v, where);
    if (/_/.test(v)) c.words.set(v, where);
  };
  const walk = (node: unknown, path: string, name: string): void => {
    if (Array.isArray(node)) return node.forEach((x, i) => walk(x, `${path}/${i}`, name));
    if (typeof node === 'string') {
      for (const w of upperSnakeWords(node)) if (!(w in NOT_CODES)) c.words.set(w, `a code named at ${path}`);
      return;
    }
    if (!node || typeof node !== 'object') return;
    const o = node as JsonObject;
    if (Array.isArray(o.enum)) for (const v of o.enum) if (typeof v === 'string') value(v, `${path}/enum`);
    if (name === 'error' && path.includes('/properties/'))
      for (const v of [o.const, o.default]) if (typeof v === 'string') value(v, `${path} (an error category)`);
    // A resource's object name (`object: { const: subscription }`): found as a whole literal only,
    // never inside a text (`a schedule_interval object` is prose, not a comparison).
    if (path.endsWith('/properties/object') && typeof o.const === 'string' && !c.values.has(o.const))
      c.values.set(o.const, `${path}/const (an object name)`);
    if (typeof o.pattern === 'string') {
      const prefix = /^\^([a-z]+_)/.exec(o.pattern)?.[1];
      if (prefix && !c.prefixes.has(prefix)) c.prefixes.set(prefix, `${path}/pattern`);
    }
    for (const k of BOUNDS) {
      const n = o[k];
      if (typeof n !== 'number') continue;
      if (!COMMON_NUMBERS.has(n)) c.numbers.set(n, `${path}/${k}`);
      if (UPPER.has(k) && name) {
        const byName = c.named.get(squash(name)) ?? new Map<number, string>();
        byName.set(n, `${path}/${k}`);
        c.named.set(squash(name), byName);
      }
    }
    // A property's schema is named by its key, a component's by its name, a parameter's by the parameter.
    const named = path.endsWith('/properties') || path === '#/components/schemas';
    for (const [k, v] of Object.entries(o))
      walk(v, `${path}/${k}`, named ? k : k === 'schema' && typeof o.name === 'string' ? o.name : name);
  };
  walk(document, '#', '');
  for (const v of categories) value(v, 'spec/rules.yaml ERRORS.CATEGORY.MATCHES_STATUS');
  return c;
}

export interface Found {
  line: number;
  /** The value copied (the key of ALLOWED's entries). */
  value: string;
  /** What was found where. */
  what: string;
}

const boundary = (w: string) =>
  new RegExp(`(?<![A-Za-z0-9_.])${w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?![A-Za-z0-9_]|\\.[A-Z])`);

/** The copies in one source file. */
export function copiesIn(source: string, c: ContractValues, fileName = 'file.ts'): Found[] {
  const file = ts.createSourceFile(fileName, source, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const found: Found[] = [];
  const at = (n: ts.Node) => file.getLineAndCharacterOfPosition(n.getStart()).line + 1;
  const words = [...c.words.keys()].map((w) => ({ w, re: boundary(w) }));
  const prefixes = [...c.prefixes.keys()].map((p) => ({
    p,
    re: new RegExp(`(?<![A-Za-z0-9_])${p}(?=[A-Za-z0-9]|$|[^A-Za-z0-9_])`),
  }));
  const namedNumber = (name: string, init: ts.Node | undefined) => {
    if (!init || !ts.isNumericLiteral(init)) return;
    const where = c.named.get(squash(name))?.get(Number(init.text));
    if (where) found.push({ line: at(init), value: init.text, what: `${name}: ${init.text} (${where})` });
  };
  const visit = (node: ts.Node): void => {
    const text =
      ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node) || ts.isTemplateLiteralToken(node)
        ? (node as ts.LiteralLikeNode).text
        : undefined;
    if (text !== undefined) {
      if (c.values.has(text)) found.push({ line: at(node), value: text, what: `'${text}' (${c.values.get(text)})` });
      else
        for (const { w, re } of words)
          if (re.test(text)) found.push({ line: at(node), value: w, what: `'${w}' in a text (${c.words.get(w)})` });
      for (const [n, where] of c.numbers)
        if (new RegExp(`(?<![\\w.#-])${n}(?!\\w)`).test(text))
          found.push({ line: at(node), value: String(n), what: `${n} in a text (${where})` });
      for (const { p, re } of prefixes)
        if (re.test(text)) found.push({ line: at(node), value: p, what: `id prefix '${p}' (${c.prefixes.get(p)})` });
    }
    if (ts.isRegularExpressionLiteral(node))
      for (const p of c.prefixes.keys())
        if (node.text.includes(`^${p}`))
          found.push({ line: at(node), value: p, what: `${node.text} (${c.prefixes.get(p)})` });
    if (ts.isNumericLiteral(node) && c.numbers.has(Number(node.text)))
      found.push({ line: at(node), value: node.text, what: `${node.text} (${c.numbers.get(Number(node.text))})` });
    if (ts.isPropertyAssignment(node) && (ts.isIdentifier(node.name) || ts.isStringLiteral(node.name)))
      namedNumber(node.name.text, node.initializer);
    if ((ts.isVariableDeclaration(node) || ts.isParameter(node)) && ts.isIdentifier(node.name))
      namedNumber(node.name.text, node.initializer);
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}

interface Allowed {
  /** The value, as Found.value gives it. */
  value: string;
  /** Files (relative to the root, forward slashes) where it stays. */
  files: string[];
  reason: string;
}

/** The literals that stay, each with why it is not the document's value (or cannot be read from it). */
export const ALLOWED: Allowed[] = [
  {
    value: 'floating',
    files: ['src/engine/predicates.ts'],
    reason: "the public fixtures type VersionPolicy, compiled into a team's module: held to the document's enum below",
  },
  {
    value: 'pinned',
    files: ['src/engine/predicates.ts'],
    reason: "the public fixtures type VersionPolicy, compiled into a team's module: held to the document's enum below",
  },
  {
    value: 'full',
    files: [
      'src/cli/command.ts',
      'src/cli/commands/faults.ts',
      'src/engine/config/index.ts',
      'src/engine/config/schema.ts',
      'src/engine/model/run.ts',
      'src/engine/ratelimit/driver.ts',
      'src/engine/reporters/model.ts',
      'src/engine/scenario/types.ts',
      'src/engine/scenario/index.ts',
      'suites/rate-limits.suite.ts',
    ],
    reason: "the run profile (quick or full, the CLI's --profile), not an API key's scope",
  },
  {
    value: 'item',
    files: [
      'src/engine/fixtures/file/strategy.ts',
      'src/engine/fixtures/method-check.ts',
      'src/engine/fixtures/methods.ts',
      'src/engine/fixtures/reference/strategy.ts',
      'src/engine/model/items-prices.ts',
      'src/engine/model/state.ts',
    ],
    reason:
      'the item() fixture method and the state model kind of an item, not the entityType of an external reference',
  },
  {
    value: 'wallet',
    files: [
      'src/engine/fixtures/file/strategy.ts',
      'src/engine/fixtures/methods.ts',
      'src/engine/fixtures/reference/strategy.ts',
    ],
    reason: 'the wallet() fixture method and its fixtures-file key, not the resource PATCH /v0/alerts/{id} names',
  },
  {
    value: 'standard',
    files: ['src/engine/fixtures/methods.ts'],
    reason: "a field of the prices() fixture's result ({ standard, volume, legacy }: the fixtures-file format)",
  },
  {
    value: 'volume',
    files: ['src/engine/fixtures/methods.ts'],
    reason: "a field of the prices() fixture's result ({ standard, volume, legacy }: the fixtures-file format)",
  },
  {
    value: 'amount',
    files: [
      'src/engine/checks/answers-as-asked.ts',
      'src/engine/checks/money.ts',
      'src/engine/fixtures/methods.ts',
      'src/engine/fixtures/reference/strategy.ts',
      'suites/source-rules.suite.ts',
    ],
    reason:
      "a field named amount (of a payment, an invoice, a top-up) and a source rule's condition type, not a price's unitBasis",
  },
  {
    value: 'archived',
    files: ['src/engine/model/items-prices.ts', 'src/engine/model/migrations.ts'],
    reason: "an item's archived flag and the state models' labels (an archived target version), not a status value",
  },
  {
    value: 'active',
    files: ['src/engine/model/items-prices.ts'],
    reason: "the items model's label of an item not archived, not a subscription's status",
  },
  {
    value: 'wallet_low_balance',
    files: ['src/engine/fixtures/methods.ts'],
    reason:
      "the fixture declarations' text (docs/fixtures.md): a team's fixtures module imports methods.ts, which reads no file on import",
  },
  // Resources' object names (an `object` property's const) that are other words of the code.
  {
    value: 'list',
    files: [
      'src/engine/checks/resources/gone.ts',
      'src/engine/checks/resources/owner.ts',
      'src/engine/checks/resources/shown.ts',
    ],
    reason: "the role of an operation of an x-resource (create, read, list...), not the list envelope's object name",
  },
  {
    value: 'subscription',
    files: [
      'src/engine/checks/rate-exceeded.ts',
      'src/engine/ratelimit/driver.ts',
      'src/engine/ratelimit/endpoints.ts',
      'suites/rate-limits.suite.ts',
    ],
    reason:
      "the bucket an operation's x-rate-limit counts in (merchant or subscription), not a subscription's object name",
  },
  {
    value: 'merchant',
    files: ['src/engine/ratelimit/endpoints.ts', 'src/engine/ratelimit/follow-ups.ts', 'suites/rate-limits.suite.ts'],
    reason: "the bucket an operation's x-rate-limit counts in (merchant or subscription), not a merchant's object name",
  },
  {
    value: 'merchant',
    files: [
      'src/engine/checks/resources/given.ts',
      'src/engine/scenario/context.ts',
      'src/engine/fixtures/file/strategy.ts',
      'src/engine/fixtures/reference/strategy.ts',
    ],
    reason: 'the merchant() fixture method: its name, its fixtures-file key and the label of its requests',
  },
  {
    value: 'customer',
    files: [
      'src/engine/fixtures/file/strategy.ts',
      'src/engine/fixtures/methods.ts',
      'src/engine/fixtures/reference/strategy.ts',
    ],
    reason: 'the customer() fixture method: its fixtures-file key and the label of its requests',
  },
  {
    value: 'order',
    files: [
      'src/engine/fixtures/file/strategy.ts',
      'src/engine/fixtures/methods.ts',
      'src/engine/fixtures/reference/billing.ts',
    ],
    reason: 'the order() fixture method: its fixtures-file key and the label of its requests',
  },
  {
    value: 'subscription',
    files: [
      'src/engine/fixtures/file/strategy.ts',
      'src/engine/fixtures/methods.ts',
      'src/engine/fixtures/reference/strategy.ts',
    ],
    reason: 'the subscription() fixture method: its fixtures-file key and the label of its requests',
  },
  {
    value: 'payment',
    files: [
      'src/engine/fixtures/file/strategy.ts',
      'src/engine/fixtures/methods.ts',
      'src/engine/fixtures/reference/billing.ts',
    ],
    reason: 'the payment() fixture method: its fixtures-file key and the label of its requests',
  },
  {
    value: 'product',
    files: ['src/engine/fixtures/reference/core.ts'],
    reason:
      "the key the reference fixtures keep their one product under (once('product')), not a product's object name",
  },
  {
    value: 'webhooks',
    files: ['src/engine/fixtures/methods.ts'],
    reason: "the webhooks suite's name, in the lists of suites a fixture serves",
  },
  {
    value: 'customer',
    files: ['src/engine/model/customers.ts', 'src/engine/model/state.ts'],
    reason: "the state model's Kind of a tracked resource (state.ts), not a customer's object name",
  },
  {
    value: 'price',
    files: ['src/engine/model/items-prices.ts', 'src/engine/model/state.ts'],
    reason: "the state model's Kind of a tracked resource (state.ts), not a price's object name",
  },
  {
    value: 'alert',
    files: ['src/engine/model/alerts.ts', 'src/engine/model/state.ts'],
    reason: "the state model's Kind of a tracked resource (state.ts), not an alert's object name",
  },
  {
    value: 'subscription',
    files: ['src/engine/model/migrations.ts', 'src/engine/model/state.ts'],
    reason: "the state model's Kind of a tracked resource (state.ts), not a subscription's object name",
  },
  {
    value: 'order',
    files: ['src/engine/checks/answers-as-asked.ts'],
    reason: "a source rule's field named order (its place among the rules), not an order's object name",
  },
  {
    value: 'payment',
    files: ['src/engine/checks/timestamps.ts'],
    reason:
      "a field named payment, left unread for timestamps (its contents are not shown), not a payment's object name",
  },
  {
    value: 'customer',
    files: ['suites/alerts.suite.ts'],
    reason: 'a resource updateAlert does not take, sent to be refused (the one it takes is read from its enum)',
  },
  {
    value: 'fee',
    files: ['suites/prices.suite.ts'],
    reason: "the key of a fee id's pattern in spec/rules.yaml CONV.ID.PATTERNS, read by idPattern",
  },
  {
    value: '2147483647',
    files: ['src/cli/command.ts'],
    reason: "--seed's range, fast-check's (a 32-bit integer), not VersionNumber's maximum",
  },
];

/** Copies not allowed (`file:line: what`) and allowed (value, file) pairs no longer found. */
export function compareWithAllowed(
  found: Array<Found & { file: string }>,
  allowed: Allowed[] = ALLOWED,
): { unlisted: string[]; stale: string[] } {
  const key = (file: string, value: string) => `${file} ${value}`;
  const listed = new Set(allowed.flatMap((a) => a.files.map((f) => key(f, a.value))));
  const seen = new Set(found.map((f) => key(f.file, f.value)));
  return {
    unlisted: found.filter((f) => !listed.has(key(f.file, f.value))).map((f) => `${f.file}:${f.line}: ${f.what}`),
    stale: allowed.flatMap((a) => a.files.filter((f) => !seen.has(key(f, a.value))).map((f) => `${f}: ${a.value}`)),
  };
}

async function contractValues(): Promise<ContractValues> {
  const categories = Object.keys(tableOf(await loadRules(), 'ERRORS.CATEGORY.MATCHES_STATUS', 'categories'));
  return contractValuesOf(await readDocument(), categories);
}

describe('values spec/openapi.yaml states are read from it, never copied', () => {
  test('the document gives the values the scanner looks for', async () => {
    const c = await contractValues();
    for (const v of ['pinned', 'floating', 'read_only', 'wallet_low_balance', 'ISSUED', 'rate_limit_exceeded'])
      expect(c.values.has(v), v).toBe(true);
    // Categories: the Error schemas' own and the rules' table.
    for (const v of ['validation_error', 'conflict', 'not_found', 'bad_request', 'forbidden'])
      expect(c.values.has(v), v).toBe(true);
    for (const w of ['INVOICE_NOT_DRAFT', 'PLAN_VERSION_NOT_FOUND', 'WEBHOOKS_NOT_ENABLED', 'in_arrears'])
      expect(c.words.has(w), w).toBe(true);
    // Rule ids the document cites are no codes.
    expect(c.words.has('NOT_BELOW_PUBLISHED')).toBe(false);
    for (const p of ['cus_', 'sub_', 'org_', 'wal_', 'crn_']) expect(c.prefixes.has(p), p).toBe(true);
    // Object names: the const of a schema's `object`, found as a whole literal, never inside a text.
    for (const v of ['list', 'subscription', 'webhooks', 'autoTopupConfig', 'schedule_interval', 'invoice_refund'])
      expect(c.values.has(v), v).toBe(true);
    expect(c.words.has('schedule_interval')).toBe(false);
    expect([...c.numbers.keys()].sort((a, b) => a - b)).toEqual([255, 2147483647]);
    expect(c.named.get('limit')?.has(100)).toBe(true);
  });

  test('every word NOT_CODES leaves out is still in the document', async () => {
    const text = JSON.stringify(await readDocument());
    for (const w of Object.keys(NOT_CODES)) expect(upperSnakeWords(text), w).toContain(w);
  });

  test('the scanner finds an enum value, a category, a code, a word in a text, an id prefix and a bound', async () => {
    const c = await contractValues();
    const src = [
      "const a = p.versionPolicy === 'pinned';",
      "type P = 'floating' | 'other';",
      'const m = `${key} is not read_only`; const e = `error rate_limit_exceeded: ${x}`;',
      "const code = body.code === 'INVOICE_NOT_DRAFT'; const cat = 'conflict';",
      "const id = 'cus_conform0'; const t = `${x}sub_${y}`; const re = /^org_[a-z]+$/;",
      "const fine = 'RATE.LIMIT_HEADER.NOT_BELOW_PUBLISHED'; const ok = 'a pinned one'; const s = 'discus_x';",
      'const long = 255; const q = { limit: 100, offset: 0 }; const n = 100; const pageSize = 100;',
      'function f(limit = 100) { return limit; }',
      "const msg = `an id of at most 255 characters`; const part = 'CUSTOMERS.EXTERNAL_ID.MAX_LENGTH#accepts-255';",
      "const l = body.object === 'list'; const i = `${x}` === 'schedule_interval'; const t = 'a schedule_interval object';",
    ].join('\n');
    expect(copiesIn(src, c).map((f) => `${f.line}: ${f.value}`)).toEqual([
      '1: pinned',
      '2: floating',
      '3: read_only',
      '3: rate_limit_exceeded',
      '4: INVOICE_NOT_DRAFT',
      '4: conflict',
      '5: cus_',
      '5: sub_',
      '5: org_',
      '7: 255',
      '7: 100',
      '8: 100',
      '9: 255',
      '10: list',
      '10: schedule_interval',
    ]);
  });

  test('a copy missing from the allow-list and an entry no longer found are both reported', () => {
    const allowed: Allowed[] = [
      { value: 'full', files: ['a.ts', 'b.ts'], reason: 'the run profile' },
      { value: 'item', files: ['a.ts'], reason: 'a fixture method' },
    ];
    const found = [
      { file: 'a.ts', line: 3, value: 'full', what: "'full'" },
      { file: 'a.ts', line: 4, value: 'item', what: "'item'" },
      { file: 'c.ts', line: 1, value: 'item', what: "'item'" },
    ];
    expect(compareWithAllowed(found, allowed)).toEqual({ unlisted: ["c.ts:1: 'item'"], stale: ['b.ts: full'] });
  });

  test('every entry of the allow-list says why', () => {
    for (const a of ALLOWED) expect(a.reason.trim().length, a.value).toBeGreaterThan(10);
  });

  test("the fixtures type VersionPolicy is the document's VersionPolicy enum", async () => {
    const path = join(ROOT, 'src/engine/predicates.ts');
    const file = ts.createSourceFile(path, await readFile(path, 'utf8'), ts.ScriptTarget.Latest, true);
    const alias = file.statements.find(
      (s): s is ts.TypeAliasDeclaration => ts.isTypeAliasDeclaration(s) && s.name.text === 'VersionPolicy',
    );
    const members = alias && ts.isUnionTypeNode(alias.type) ? alias.type.types : [];
    const written = members.map((m) =>
      ts.isLiteralTypeNode(m) && ts.isStringLiteral(m.literal) ? m.literal.text : '?',
    );
    expect(written.sort()).toEqual([...schemaEnum(await loadSpec(), 'VersionPolicy')].sort());
  });

  test("the fixtures-file keys of migration (a team fills them in) are the document's VersionPolicy values", async () => {
    // Written out in methods.ts, which a team's fixtures module imports and which reads no file on import.
    const policies = schemaEnum(await loadSpec(), 'VersionPolicy');
    const keys = FILE_KEYS.filter((k) => k.key.startsWith('migration.')).map((k) => k.key.slice('migration.'.length));
    expect([...keys].sort()).toEqual([...policies].sort());
    for (const p of policies) expect(FIXTURE_DECLARATIONS.migration.contract.signature).toContain(`'${p}'`);
  });

  test('src/engine, src/passive, src/cli and suites/ hold no copy but those allowed', async () => {
    const c = await contractValues();
    const found: Array<Found & { file: string }> = [];
    for (const dir of SCANNED)
      for (const f of await tsFiles(join(ROOT, dir))) {
        const file = relative(ROOT, f).split('\\').join('/');
        for (const hit of copiesIn(await readFile(f, 'utf8'), c, file)) found.push({ file, ...hit });
      }
    expect(compareWithAllowed(found)).toEqual({ unlisted: [], stale: [] });
  });
});
