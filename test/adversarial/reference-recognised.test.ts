/**
 * The other side of the Prism tests: the reference server itself, run apart (`conform serve`),
 * is still recognised by its signed handshake, its fixtures pass the vetting, and its
 * documented-only port (the extensions answer 404) is not taken for it; the bundled reference
 * keeps the reference strategy.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { probe } from '../../src/engine/target/probe.ts';
import { probeReferenceExtensions } from '../../src/engine/fixtures/index.ts';
import { HttpClient } from '../../src/engine/http/index.ts';
import { conformRun, ROOT, startDocumentedOnlyTarget, type DocumentedOnlyTarget } from '../sandbox/harness.ts';

const SUITES = join(ROOT, 'test/engine/fixtures-suites');

let serve: DocumentedOnlyTarget;
let work: string;
beforeAll(async () => {
  serve = await startDocumentedOnlyTarget();
  work = await mkdtemp(join(tmpdir(), 'conform-recognised-'));
}, 60_000);
afterAll(async () => {
  await serve?.close();
  if (work) await rm(work, { recursive: true, force: true });
});

/**
 * The demo's scenario asks for a merchant whose webhooks were never enabled, then fails on
 * purpose: its failure (not a missing fixture) says the fixture was built and passed the vetting.
 */
const fixtureBuilt = (report: { rules: Array<{ id: string; verdict: string; reasons?: string[] }> }) => {
  const rule = report.rules.find((x) => x.id === 'WEBHOOKS.404.NEVER_ENABLED');
  return rule?.verdict === 'failed' && rule.reasons?.[0] === 'unreachable without the fixture';
};

const client = (baseUrl: string) => new HttpClient({ baseUrl, apiKey: serve.apiKey, apiKeyLabel: 'CONFORM_API_KEY' });

describe('the reference server is still recognised', () => {
  test('conform serve signs the handshake; its documented-only port does not, and neither base URL is refused', async () => {
    expect(await probeReferenceExtensions(client(serve.adminUrl))).toEqual({
      answers: true,
      detail: ['POST /v0/referenceHandshake -> 200, signature verified'],
    });
    expect(await probeReferenceExtensions(client(serve.baseUrl))).toEqual({
      answers: false,
      detail: ['POST /v0/referenceHandshake -> 404'],
    });
    await expect(probe(client(serve.adminUrl))).resolves.toBeUndefined();
    await expect(probe(client(serve.baseUrl))).resolves.toBeUndefined();
  });

  test('conform run against conform serve picks the reference strategy, whose fixtures pass the vetting', async () => {
    const dir = join(work, 'serve');
    const r = await conformRun(['--base-url', serve.adminUrl, '--suites-dir', SUITES], {
      cwd: ROOT,
      env: { CONFORM_API_KEY: serve.apiKey },
      reportDir: dir,
    });
    expect(r.stdout).toMatch(/ · fixtures reference · /);
    const report = JSON.parse(await readFile(join(dir, 'report.json'), 'utf8'));
    expect(report.run.fixtures.reason).toBe('the target signed the reference handshake: it is the reference server');
    expect(fixtureBuilt(r.report)).toBe(true);
  }, 180_000);

  test('the bundled reference keeps the reference strategy', async () => {
    const dir = join(work, 'bundled');
    // --reference: CI may be set where this test runs, and a bundled run there is refused without it.
    const r = await conformRun(['--reference', '--suites-dir', SUITES], {
      cwd: ROOT,
      env: { CONFORM_API_KEY: '' },
      reportDir: dir,
    });
    expect(r.stdout, r.stderr).toMatch(/\(bundled reference\) .* · fixtures reference · /);
    expect(fixtureBuilt(r.report)).toBe(true);
  }, 180_000);
});
