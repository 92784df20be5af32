/**
 * Replays each held-out set 2 demo without a server, the way the fault proxy runs a fault:
 * onRequest, then the target's answer (the step's res, or its function of the forwarded
 * request) unless the fault answered, then onResponse, with an edited `json` written back to
 * the bytes. Checks that each demo's verify passes with the fault and fails without it.
 */
import { execFileSync } from 'node:child_process';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { Fault, FaultContext, ProxyRequest, ProxyResponse } from '../../src/faults/fault-proxy.ts';
import { FAULT_AREAS, type CatalogFault, type DemoOutcome, type DemoStep } from '../../src/faults/catalog/types.ts';
import { HELDOUT_SET_2, heldoutSet2Benign, heldoutSet2Faults } from '../../heldout/set-2/index.ts';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

const isResponse = (x: unknown): x is ProxyResponse => !!x && typeof (x as ProxyResponse).status === 'number';

const copyReq = (r: ProxyRequest): ProxyRequest => ({
  ...r,
  headers: { ...r.headers },
  body: Buffer.from(r.body),
  json: r.json === undefined ? undefined : structuredClone(r.json),
});

const copyRes = (r: ProxyResponse): ProxyResponse => ({
  ...r,
  headers: { ...r.headers },
  body: Buffer.from(r.body),
  json: r.json === undefined ? undefined : structuredClone(r.json),
});

/** Runs the demo's steps through `fault` (or through nothing), with one state map for the run. */
async function replay(fault: Fault | undefined, steps: DemoStep[]): Promise<DemoOutcome[]> {
  const state = new Map<string, unknown>();
  const out: DemoOutcome[] = [];
  for (const step of steps) {
    let applied = 0;
    const ctx: FaultContext = {
      state,
      upstream: () => Promise.reject(new Error('no upstream in a demo replay')),
      applied: () => void (applied += 1),
    };
    const req = copyReq(step.req);
    const started = Date.now();
    const early = fault?.onRequest ? await fault.onRequest(req, ctx) : undefined;
    let forwarded: ProxyRequest | undefined;
    let res: ProxyResponse;
    if (isResponse(early)) res = early;
    else {
      forwarded = early ?? req;
      // What reaches the target is the JSON the fault left (the proxy re-serialises it).
      if (forwarded.json !== undefined) forwarded = { ...forwarded, body: Buffer.from(JSON.stringify(forwarded.json)) };
      res = typeof step.res === 'function' ? copyRes(step.res(copyReq(forwarded))) : copyRes(step.res);
    }
    let response = res;
    if (fault?.onResponse) {
      const originalBody = res.body;
      const originalJson = JSON.stringify(res.json);
      const final = (await fault.onResponse(req, res, ctx)) ?? res;
      const body =
        final.body !== originalBody || final.json === undefined || JSON.stringify(final.json) === originalJson
          ? final.body
          : Buffer.from(JSON.stringify(final.json));
      response = { ...final, body };
    }
    out.push({ forwarded, response, applied, durationMs: Date.now() - started });
  }
  return out;
}

function ruleIds(): Set<string> {
  const text = execFileSync(process.execPath, [resolve(ROOT, 'bin/conform.js'), 'rules', '--json'], {
    cwd: ROOT,
    encoding: 'utf8',
    maxBuffer: 32 * 1024 * 1024,
  });
  const rules = JSON.parse(text) as Array<{ id: string }>;
  return new Set(rules.map((r) => r.id));
}

describe('held-out set 2: catalog shape', () => {
  it('has at least 20 faults and 5 benign variants', () => {
    expect(heldoutSet2Faults.length).toBeGreaterThanOrEqual(20);
    expect(heldoutSet2Benign.length).toBeGreaterThanOrEqual(5);
    expect(HELDOUT_SET_2).toHaveLength(heldoutSet2Faults.length + heldoutSet2Benign.length);
  });

  it('has unique names with the set prefix', () => {
    const names = HELDOUT_SET_2.map((f) => f.name);
    expect(new Set(names).size).toBe(names.length);
    for (const f of heldoutSet2Faults) expect(f.name).toMatch(/^ho2-(?!benign-)/);
    for (const f of heldoutSet2Benign) expect(f.name).toMatch(/^ho2-benign-/);
  });

  it('names rules for faults and none for benign variants, runs every suite, uses known areas', () => {
    for (const f of heldoutSet2Faults) {
      expect(f.benign, f.name).toBeFalsy();
      expect(f.rules.length, f.name).toBeGreaterThan(0);
    }
    for (const f of heldoutSet2Benign) {
      expect(f.benign, f.name).toBe(true);
      expect(f.rules, f.name).toEqual([]);
    }
    for (const f of HELDOUT_SET_2) {
      expect(f.suites, f.name).toEqual([]);
      expect(FAULT_AREAS as readonly string[], f.name).toContain(f.area);
      expect(f.description.length, f.name).toBeGreaterThan(40);
      expect(f.demo.steps.length, f.name).toBeGreaterThan(0);
    }
  });

  it('names only rule ids the tool has', () => {
    const known = ruleIds();
    expect(known.size).toBeGreaterThan(0);
    const unknown = HELDOUT_SET_2.flatMap((f) => f.rules.filter((r) => !known.has(r)).map((r) => `${f.name}: ${r}`));
    expect(unknown).toEqual([]);
  });
});

describe('held-out set 2: demos', () => {
  it.each(HELDOUT_SET_2.map((f): [string, CatalogFault] => [f.name, f]))('%s does what it says', async (_n, f) => {
    const withFault = await replay(f, f.demo.steps);
    const last = withFault[withFault.length - 1];
    expect(f.demo.verify(last, withFault)).toBeUndefined();
    expect(last.applied).toBeGreaterThanOrEqual(1);
    expect(last.durationMs ?? 0).toBeLessThan(1000);

    const without = await replay(undefined, f.demo.steps);
    expect(f.demo.verify(without[without.length - 1], without)).toBeDefined();
  });
});
