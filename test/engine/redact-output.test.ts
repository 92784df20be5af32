import { beforeEach, describe, expect, test } from 'vitest';
import {
  clearSecrets,
  isSecretLike,
  learnSecret,
  redact,
  redactAuthorization,
  redactDeep,
  registerFixtureKey,
  registerSecret,
  secretVariable,
  variablesIn,
} from '../../src/engine/http/redact.ts';
import { outputStyle, paint, progressLine } from '../../src/engine/runner/progress.ts';
import type { ScenarioResult } from '../../src/engine/runner/types.ts';

beforeEach(() => clearSecrets());

describe('redaction', () => {
  test('labelled secrets become $LABEL, unlabelled ones a numbered variable; every occurrence, keys of objects too', () => {
    registerSecret('sk_live_primary_0001', 'BILLING_API_KEY');
    registerSecret('sk_live_other_00002');
    expect(redact('a sk_live_primary_0001 b sk_live_primary_0001 c sk_live_other_00002')).toBe(
      'a $BILLING_API_KEY b $BILLING_API_KEY c $CONFORM_KEY_1',
    );
    expect(redactDeep({ k: ['x sk_live_other_00002'], sk_live_other_00002: 1 })).toEqual({
      k: ['x $CONFORM_KEY_1'],
      $CONFORM_KEY_1: 1,
    });
    expect(redactAuthorization('Bearer sk_live_primary_0001')).toBe('Bearer $BILLING_API_KEY');
  });

  test("a fixture's key is named after the fixture, a variable the user set keeps its name; each says where it comes from", () => {
    registerSecret('sk_second_from_env_01', 'BILLING_API_KEY_2', 'a second key of the merchant (secondKeyEnv)');
    registerFixtureKey('sk_second_from_env_01', 'secondKeySameMerchant');
    registerSecret('sk_made_by_fixture_01');
    registerFixtureKey('sk_made_by_fixture_01', 'otherMerchantKey');
    registerFixtureKey('sk_made_by_fixture_02', 'otherMerchantKey');
    registerFixtureKey('sk_made_by_fixture_01', 'otherMerchantKey');
    const text = redact('sk_second_from_env_01 sk_made_by_fixture_01 sk_made_by_fixture_02 $HOME');
    expect(text).toBe('$BILLING_API_KEY_2 $CONFORM_KEY_OTHER_MERCHANT $CONFORM_KEY_OTHER_MERCHANT_2 $HOME');
    expect(variablesIn(text)).toEqual([
      { name: 'BILLING_API_KEY_2', origin: 'a second key of the merchant (secondKeyEnv)' },
      { name: 'CONFORM_KEY_OTHER_MERCHANT', origin: 'key made by fixture otherMerchantKey' },
      { name: 'CONFORM_KEY_OTHER_MERCHANT_2', origin: 'key made by fixture otherMerchantKey (the 2nd it made)' },
    ]);
    expect(secretVariable('CONFORM_KEY_OTHER_MERCHANT')?.userNamed).toBe(false);
    expect(secretVariable('BILLING_API_KEY_2')?.userNamed).toBe(true);
  });

  test('the longer of two overlapping secrets is replaced whole', () => {
    registerSecret('sk_test_abcdef');
    registerSecret('sk_test_abcdef_longer', 'SECOND_KEY');
    expect(redact('sk_test_abcdef_longer')).toBe('$SECOND_KEY');
  });

  test('too-short values are not treated as secrets (they would shred ordinary text)', () => {
    registerSecret('abc');
    expect(redact('abc abc')).toBe('abc abc');
  });

  test('a value learnt from a target is a secret only when it looks like a key, never a placeholder', () => {
    // A mock's placeholders and random fill: a schema's "string", a word, lorem text, a bare prefix.
    const placeholders = [
      'string',
      'pay_',
      'exercitation',
      'dolore amet eu exercitation',
      'xxxxxxxxxxxxxxxx',
      'short_1',
    ];
    for (const p of placeholders) {
      expect(isSecretLike(p), p).toBe(false);
      learnSecret(p);
    }
    const text = placeholders.join(' | ');
    expect(redact(text)).toBe(text);
    for (const key of ['sk_test_Xq3b9Lr2Zt8mWk1n', 'sk_test_conform_reference', 'a1b2c3d4e5f6a7b8']) {
      expect(isSecretLike(key), key).toBe(true);
      learnSecret(key);
      expect(redact(`k=${key}`)).toMatch(/^k=\$CONFORM_KEY_\d+$/);
    }
    // A key the user configured is theirs to name: registered from 6 characters, label and all.
    registerSecret('sk_abc', 'SHORT_KEY');
    expect(redact('sk_abc')).toBe('$SHORT_KEY');
  });

  test('a later label does not get lost, an unlabelled re-registration keeps it', () => {
    registerSecret('sk_live_relabel_01');
    registerSecret('sk_live_relabel_01', 'CONFORM_API_KEY');
    registerSecret('sk_live_relabel_01');
    expect(redact('sk_live_relabel_01')).toBe('$CONFORM_API_KEY');
  });
});

describe('output style', () => {
  test('plain under CI=true, when not a TTY, or with --plain; NO_COLOR drops colour', () => {
    expect(outputStyle({ env: { CI: 'true' }, isTTY: true })).toMatchObject({ plain: true, color: false });
    expect(outputStyle({ env: {}, isTTY: false })).toMatchObject({ plain: true, color: false });
    expect(outputStyle({ env: {}, isTTY: true, plain: true })).toMatchObject({ plain: true });
    expect(outputStyle({ env: {}, isTTY: true })).toMatchObject({ plain: false, color: true });
    expect(outputStyle({ env: { NO_COLOR: '1' }, isTTY: true })).toMatchObject({ plain: false, color: false });
  });

  test('progress lines: PASS/FAIL/NOT JUDGED/ENGINE ERROR in plain mode with rule ids, reasons and findings', () => {
    const style = outputStyle({ env: { CI: 'true' }, write: () => undefined });
    const base: ScenarioResult = {
      id: '1',
      suite: 'auth',
      file: 'f',
      title: 'no bearer',
      fullName: 'no bearer',
      state: 'passed',
      durationMs: 12.4,
      ruleIds: ['AUTH.401.SHAPE'],
      judged: {},
      failed: {},
      findings: [],
      findingCount: 0,
      notes: [],
      exchanges: 1,
      notJudged: [],
      engineErrors: [],
    };
    expect(progressLine(style, base)).toEqual(['PASS auth > no bearer [AUTH.401.SHAPE] 12 ms']);
    expect(
      progressLine(style, {
        ...base,
        state: 'skipped',
        skipReason: 'no fixture',
        notJudged: [{ reason: 'no fixture', category: 'fixture', ruleIds: ['AUTH.401.SHAPE'], endedScenario: true }],
      }),
    ).toEqual(['NOT JUDGED auth > no bearer [AUTH.401.SHAPE] 12 ms', '    not judged (fixture): no fixture']);
    const failed = progressLine(style, {
      ...base,
      state: 'failed',
      findingCount: 1,
      findings: [{ source: 's', ruleIds: ['AUTH.401.SHAPE'], title: 'got 200', message: 'm' }],
    });
    expect(failed[1]).toBe('    [AUTH.401.SHAPE] got 200: m');
    expect(
      progressLine(style, {
        ...base,
        state: 'error',
        engineErrors: [{ source: 'scenario', message: 'TypeError: x\nat y', ruleIds: [] }],
      }),
    ).toEqual(['ENGINE ERROR auth > no bearer [AUTH.401.SHAPE] 12 ms', '    engine error (scenario): TypeError: x']);
    expect(paint(style, 'red', 'x')).toBe('x');
    expect(paint(outputStyle({ env: {}, isTTY: true }), 'red', 'x')).toBe('\u001b[31mx\u001b[0m');
  });
});
