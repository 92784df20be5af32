/**
 * Replays a fault's demo without a server, the way the proxy runs a fault: onRequest may
 * answer or rewrite the request, the "target" answers what reaches it, onResponse may edit
 * or replace the answer, and an edited `json` is re-serialised unless raw bytes were set.
 */
import type { Fault, FaultContext, ProxyRequest, ProxyResponse } from '../../src/faults/fault-proxy.ts';
import type { DemoOutcome, DemoStep } from '../../src/faults/catalog/index.ts';

function cloneReq(r: ProxyRequest): ProxyRequest {
  return { ...r, headers: { ...r.headers }, json: r.json === undefined ? undefined : structuredClone(r.json) };
}

function cloneRes(r: ProxyResponse): ProxyResponse {
  return { ...r, headers: { ...r.headers }, json: r.json === undefined ? undefined : structuredClone(r.json) };
}

function isResponse(x: unknown): x is ProxyResponse {
  return !!x && typeof (x as ProxyResponse).status === 'number';
}

export async function simulate(fault: Fault | undefined, steps: DemoStep[]): Promise<DemoOutcome[]> {
  const state = new Map<string, unknown>();
  const out: DemoOutcome[] = [];
  for (const step of steps) {
    let applied = 0;
    const t0 = performance.now();
    const answer = (r: ProxyRequest) => cloneRes(typeof step.res === 'function' ? step.res(r) : step.res);
    const ctx: FaultContext = { state, upstream: async (r) => answer(r), applied: () => void (applied += 1) };
    const request = cloneReq(step.req);
    const early = fault?.onRequest ? await fault.onRequest(request, ctx) : undefined;
    let forwarded: ProxyRequest | undefined;
    let res: ProxyResponse;
    if (isResponse(early)) res = early;
    else {
      forwarded = early ?? request;
      res = answer(forwarded);
    }
    const originalBody = res.body;
    const originalJson = JSON.stringify(res.json);
    const final = (fault?.onResponse ? await fault.onResponse(request, res, ctx) : undefined) ?? res;
    const body =
      final.body !== originalBody || final.json === undefined || JSON.stringify(final.json) === originalJson
        ? final.body
        : Buffer.from(JSON.stringify(final.json));
    out.push({ forwarded, response: { ...final, body }, applied, durationMs: performance.now() - t0 });
  }
  return out;
}

/** A comparable digest of an outcome: what reached the target and what the client got. */
export function digest(o: DemoOutcome): string {
  return JSON.stringify({
    forwarded: o.forwarded && {
      method: o.forwarded.method,
      path: o.forwarded.path,
      headers: o.forwarded.headers,
      json: o.forwarded.json,
    },
    status: o.response.status,
    headers: o.response.headers,
    body: o.response.body.toString('utf8'),
    slow: (o.durationMs ?? 0) >= 20,
  });
}
