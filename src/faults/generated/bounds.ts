/**
 * Off-by-one faults at every documented bound of a request (minimum, maximum, maxLength of
 * a query parameter or a body field): too strict (the bound itself is refused with 400) and
 * too lax (one past it is let through: the proxy forwards the bound instead, so the target
 * accepts what it should have refused).
 */
import type { Operation, Spec } from '../../contract/index.ts';
import type { ProxyRequest } from '../fault-proxy.ts';
import { bodyOf, expectAll, json, pathOf, queryOf, withQuery } from '../catalog/helpers.ts';
import type { DemoOutcome } from '../catalog/types.ts';
import { documentedConstraints, statedFor, type Constraint } from '../../engine/generators/index.ts';
import { placement } from './ops.ts';
import { sampleRequest } from './response.ts';
import type { GeneratedFault } from './types.ts';

interface Bound {
  op: Operation;
  location: 'query' | 'body';
  /** Query parameter name, or the body pointer's segments. */
  segments: string[];
  kind: 'minimum' | 'maximum' | 'maxLength';
  bound: number;
  label: string;
}

function boundsOf(spec: Spec, op: Operation): Bound[] {
  const inputs = spec.requestSchemas(op.operationId);
  const out: Bound[] = [];
  for (const location of ['query', 'body'] as const) {
    for (const c of documentedConstraints(
      inputs?.[location],
      location,
      statedFor(op.operationId, location),
    ) as Constraint[]) {
      if (c.kind !== 'minimum' && c.kind !== 'maximum' && c.kind !== 'maxLength') continue;
      const bound = c.schema[c.kind] as number;
      const segments = c.pointer.split('/').slice(1);
      out.push({ op, location, segments, kind: c.kind, bound, label: `${segments.join('.')} ${c.label}` });
    }
  }
  return out;
}

/** The value at the bound's place in a request (query values parsed as numbers), or undefined. */
function valueIn(r: ProxyRequest, b: Bound): unknown {
  if (b.location === 'query') {
    const raw = queryOf(r).get(b.segments[0]);
    return raw === null
      ? undefined
      : b.kind === 'maxLength'
        ? raw
        : raw.trim() !== '' && Number.isFinite(Number(raw))
          ? Number(raw)
          : undefined;
  }
  let v: unknown = bodyOf(r);
  for (const s of b.segments) v = v && typeof v === 'object' ? (v as Record<string, unknown>)[s] : undefined;
  return v;
}

function setIn(r: ProxyRequest, b: Bound, value: unknown): void {
  if (b.location === 'query') {
    const q = queryOf(r);
    q.set(b.segments[0], String(value));
    withQuery(r, q);
    return;
  }
  let o = bodyOf(r) as Record<string, unknown>;
  for (const s of b.segments.slice(0, -1)) o = o[s] as Record<string, unknown>;
  o[b.segments[b.segments.length - 1]] = value;
}

/** How far a value is from the bound: 0 at the bound, 1 one step past it, negative inside. */
function past(v: unknown, b: Bound): number | undefined {
  if (b.kind === 'maxLength') return typeof v === 'string' ? [...v].length - b.bound : undefined;
  if (typeof v !== 'number') return undefined;
  return b.kind === 'maximum' ? v - b.bound : b.bound - v;
}

/** A value `steps` past the bound (0: the bound itself), of the right type. */
function at(b: Bound, steps: number): unknown {
  if (b.kind === 'maxLength') return 'x'.repeat(b.bound + steps);
  return b.kind === 'maximum' ? b.bound + steps : b.bound - steps;
}

function demoRequest(b: Bound, value: unknown): ProxyRequest {
  const r = sampleRequest(b.op, b.location === 'body' ? {} : undefined);
  if (b.location === 'body') {
    let o = bodyOf(r) as Record<string, unknown>;
    for (const s of b.segments.slice(0, -1)) o = (o[s] ??= {}) as Record<string, unknown>;
    o[b.segments[b.segments.length - 1]] = value;
    r.body = Buffer.from(JSON.stringify(r.json));
  } else setIn(r, b, value);
  return r;
}

export function boundFaults(spec: Spec, ops: Operation[]): GeneratedFault[] {
  const out: GeneratedFault[] = [];
  for (const op of ops) {
    const { area, suites } = placement(op.operationId);
    for (const b of boundsOf(spec, op)) {
      const matches = (r: ProxyRequest) => spec.findOperation(r.method, pathOf(r))?.operationId === op.operationId;
      const field = b.segments.join('.');
      const edge = b.kind === 'maxLength' ? 'max-length' : b.kind === 'maximum' ? 'max' : 'min';
      const slug = `${field.replace(/[^a-zA-Z0-9]+/g, '-')}-${edge}`;
      const base = {
        area,
        operationId: op.operationId,
        field,
        rules: ['VALIDATION.BOUNDS.400', 'VALIDATION.VALID_REQUEST.NOT_400'],
        suites,
      };
      out.push({
        ...base,
        name: `gen-${op.operationId}-${slug}-too-strict`,
        kind: 'bound-strict',
        description: `${op.method} ${op.pathTemplate} refuses ${field} at its documented bound (${b.label}) with 400`,
        offTraffic:
          'a valid request refused with 400: traffic does not show why a real request was refused (a constraint ' +
          'the document states in prose), so the passive judge never fails a 400',
        onRequest(r, ctx) {
          if (!matches(r) || past(valueIn(r, b), b) !== 0) return;
          ctx.applied();
          return json(400, {
            error: 'validation_error',
            message: `${field} is out of range`,
            errors: [{ field, message: `must be within ${b.label}` }],
          });
        },
        demo: {
          steps: [{ req: demoRequest(b, at(b, 0)), res: json(200, { ok: true }) }],
          verify: (o: DemoOutcome) =>
            expectAll([
              o.response.status === 400 && o.forwarded === undefined,
              `the bound value got ${o.response.status}`,
            ]),
        },
      });
      out.push({
        ...base,
        name: `gen-${op.operationId}-${slug}-too-lax`,
        kind: 'bound-lax',
        description:
          `${op.method} ${op.pathTemplate} lets ${field} one past its documented bound (${b.label}) through, ` +
          'as if it were the bound',
        onRequest(r, ctx) {
          const v = valueIn(r, b);
          if (!matches(r) || past(v, b) !== 1) return;
          setIn(r, b, typeof v === 'string' ? [...v].slice(0, b.bound).join('') : at(b, 0));
          ctx.applied();
        },
        demo: {
          steps: [
            {
              req: demoRequest(b, at(b, 1)),
              res: (fw) =>
                past(valueIn(fw, b), b) === 1
                  ? json(400, { error: 'validation_error', message: 'out of range', errors: [] })
                  : json(200, { ok: true }),
            },
          ],
          verify: (o: DemoOutcome) =>
            expectAll([
              o.response.status === 200 && past(valueIn(o.forwarded!, b), b) === 0,
              `one past the bound got ${o.response.status}`,
            ]),
        },
      });
    }
  }
  return out;
}
