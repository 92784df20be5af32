/**
 * Faults on answers, one per documented response field: the field dropped, given another
 * JSON type, or its pattern, enum, format or documented range broken. An optional field
 * of an object whose required fields the document states is dropped as a benign variant
 * ("optional fields omitted"); a field whose presence the document leaves open is dropped
 * as an indeterminate case. Extra fields are added as benign variants, one per operation.
 */
import type { Operation, Spec } from '../../contract/index.ts';
import type { ProxyRequest, ProxyResponse } from '../fault-proxy.ts';
import { expectAll, got, json, pathOf, req, type Json } from '../catalog/helpers.ts';
import type { DemoOutcome } from '../catalog/types.ts';
import {
  breakEnum,
  breakFormat,
  breakPattern,
  breakRange,
  dropAt,
  fieldSites,
  flatten,
  fullSample,
  otherType,
  pathLabel,
  replaceAt,
  type FieldSite,
} from './fields.ts';
import { ERROR_AREA, errorSuites, placement } from './ops.ts';
import type { GeneratedFault, GeneratedKind } from './types.ts';

/** Success answers whose body the document shows, per documented operation. */
export function documentedSuccess(op: Operation): { key: string; schema: Json } | undefined {
  const r = Object.values(op.responses).find((x) => /^2/.test(x.key));
  if (!r?.schema || /body/.test(r.notShown ?? '')) return undefined;
  return { key: r.key, schema: r.schema };
}

/** Documented error statuses and the schema of each (the first operation declaring it). */
export function documentedErrors(ops: Operation[]): Array<{ status: string; schema: Json; op: Operation }> {
  const seen = new Map<string, { status: string; schema: Json; op: Operation }>();
  for (const op of ops) {
    for (const r of Object.values(op.responses)) {
      // 409 bodies differ per operation (blockers, migration codes): handled with the operation's success faults.
      if (!/^4\d\d$/.test(r.key) || r.key === '409' || !r.schema || seen.has(r.key)) continue;
      seen.set(r.key, { status: r.key, schema: r.schema, op });
    }
  }
  return [...seen.values()];
}

export const statusMatches = (key: string, status: number): boolean =>
  /^\dXX$/i.test(key) ? String(status)[0] === key[0] : String(status) === key;

/** A request to `op` with sample path parameters and required query parameters (demos). */
export function sampleRequest(op: Operation, body?: unknown): ProxyRequest {
  let path = op.pathTemplate;
  const query = new URLSearchParams();
  for (const p of op.parameters) {
    const v =
      p.schema.enum?.[0] ??
      (typeof p.schema.pattern === 'string' ? String(fullSample(p.schema)) : `${p.name.toLowerCase()}_demo1`);
    if (p.in === 'path') path = path.replace(`{${p.name}}`, encodeURIComponent(String(v)));
    else if (p.in === 'query' && p.required) query.set(p.name, String(v));
  }
  const q = query.toString();
  const send = body ?? (['POST', 'PATCH', 'PUT'].includes(op.method) ? {} : undefined);
  return req(op.method, q ? `${path}?${q}` : path, send);
}

interface Mutation {
  kind: GeneratedKind;
  verb: string;
  apply(body: unknown, site: FieldSite): boolean;
}

function mutations(site: FieldSite): Mutation[] {
  const s = site.schema;
  const out: Mutation[] = [{ kind: 'drop', verb: 'drop', apply: (b) => dropAt(b, site.path) }];
  if (otherType(fullSample(s), s) !== undefined)
    out.push({
      kind: 'type',
      verb: 'give another JSON type to',
      apply: (b) => replaceAt(b, site.path, (v) => otherType(v, s)),
    });
  if (site.valueNotShown) return out;
  if (typeof s.pattern === 'string')
    out.push({
      kind: 'pattern',
      verb: `break the pattern ${s.pattern} of`,
      apply: (b) => replaceAt(b, site.path, (v) => breakPattern(v, s.pattern as string)),
    });
  if (s.const !== undefined || (Array.isArray(s.enum) && s.enum.length))
    out.push({
      kind: 'enum',
      verb: 'carry a value outside the documented values of',
      apply: (b) => replaceAt(b, site.path, (v) => breakEnum(v, s)),
    });
  if (typeof s.format === 'string' && breakFormat('x', s.format) !== undefined)
    out.push({
      kind: 'format',
      verb: `break the ${s.format} format of`,
      apply: (b) => replaceAt(b, site.path, (v) => breakFormat(v, s.format as string)),
    });
  if (s.minimum !== undefined || s.maximum !== undefined)
    out.push({
      kind: 'range',
      verb: `carry a value past the documented ${s.minimum !== undefined ? `minimum ${s.minimum}` : `maximum ${s.maximum}`} of`,
      apply: (b) => replaceAt(b, site.path, (v) => breakRange(v, s)),
    });
  return out;
}

const slug = (s: string): string =>
  s
    .replace(/\[\]/g, '')
    .replace(/[^a-zA-Z0-9]+/g, '-')
    .replace(/^-|-$/g, '');

interface Target {
  /** Operation id, or undefined for an error status of every operation. */
  operationId?: string;
  status: string;
  schema: Json;
  demoOp: Operation;
  area: GeneratedFault['area'];
  suites: string[];
  label: string;
}

/**
 * The fields a client writes: the properties of every documented request body. Left out of
 * an answer while it holds the value the client wrote, such a field reads as wiped (the
 * patch-wipes-unsent faults do just that), so leaving it out is no benign variant.
 */
function writtenFields(ops: Operation[]): Set<string> {
  const out = new Set<string>();
  for (const op of ops) {
    if (op.notShown.some((n) => /payload|body shape/.test(n))) continue;
    for (const k of Object.keys(op.requestBody?.schema ? (flatten(op.requestBody.schema).properties ?? {}) : {}))
      out.add(k);
  }
  return out;
}

function faultsFor(spec: Spec, written: Set<string>, t: Target): GeneratedFault[] {
  const out: GeneratedFault[] = [];
  const answers = (r: ProxyRequest, res: ProxyResponse): boolean => {
    if (!statusMatches(t.status, res.status) || res.json === undefined) return false;
    const op = spec.findOperation(r.method, pathOf(r));
    return !!op && !op.extension && (t.operationId === undefined || op.operationId === t.operationId);
  };
  const sample = fullSample(t.schema) as Json;
  const demoStatus = /XX/.test(t.status) ? 200 : Number(t.status);
  for (const site of fieldSites(t.schema)) {
    const field = pathLabel(site.path);
    const key = site.path[site.path.length - 1];
    for (const m of mutations(site)) {
      const optional = m.kind === 'drop' && !site.required;
      const benign = optional && site.presenceStated && !site.requiredInSomeShape;
      if (benign && written.has(key)) continue;
      const probe = structuredClone(sample);
      if (!m.apply(probe, site)) continue;
      const indeterminate =
        optional && site.requiredInSomeShape
          ? `${field} is required by one documented shape of the body and not by the other, which the body may then be`
          : optional && !site.presenceStated
            ? `the document does not say whether ${field} is always present`
            : undefined;
      const name = `gen-${t.operationId ?? `error-${t.status}`}-${slug(field)}-${benign ? 'omitted' : m.kind}`;
      out.push({
        name,
        area: t.area,
        kind: benign ? 'benign-omit-optional' : m.kind,
        operationId: t.operationId,
        status: t.status,
        field,
        description: benign ? `${t.label} leave out the optional ${field}` : `${t.label} ${m.verb} ${field}`,
        ...(benign ? { benign: true } : {}),
        ...(indeterminate ? { indeterminate } : {}),
        rules: benign ? [] : ['SCHEMA.RESPONSE.MATCHES'],
        suites: t.suites,
        onResponse(r, res, ctx) {
          if (answers(r, res) && m.apply(res.json, site)) ctx.applied();
        },
        demo: {
          steps: [{ req: sampleRequest(t.demoOp), res: json(demoStatus, structuredClone(sample)) }],
          verify: (o: DemoOutcome) =>
            expectAll([
              JSON.stringify(got(o)) === JSON.stringify(probe),
              `${field} not changed as described: ${JSON.stringify(got(o))}`,
            ]),
        },
      });
    }
  }
  return out;
}

/** Response-field faults (and the omitted-optional benign variants) of every documented answer. */
export function responseFaults(spec: Spec, ops: Operation[]): GeneratedFault[] {
  const out: GeneratedFault[] = [];
  const written = writtenFields(ops);
  for (const op of ops) {
    const { area, suites } = placement(op.operationId);
    const ok = documentedSuccess(op);
    if (ok)
      out.push(
        ...faultsFor(spec, written, {
          operationId: op.operationId,
          status: ok.key,
          schema: ok.schema,
          demoOp: op,
          area,
          suites,
          label: `the answers of ${op.method} ${op.pathTemplate}`,
        }),
      );
    const conflict = op.responses['409'];
    if (conflict?.schema)
      out.push(
        ...faultsFor(spec, written, {
          operationId: op.operationId,
          status: '409',
          schema: conflict.schema,
          demoOp: op,
          area,
          suites,
          label: `the 409 answers of ${op.method} ${op.pathTemplate}`,
        }),
      );
  }
  for (const e of documentedErrors(ops)) {
    out.push(
      ...faultsFor(spec, written, {
        status: e.status,
        schema: e.schema,
        demoOp: e.op,
        area: ERROR_AREA,
        suites: [...new Set(['contract', ...errorSuites(e.status)])].sort(),
        label: `the ${e.status} answers of every operation`,
      }),
    );
  }
  return out;
}

/** Adds `conformExtra` to every object of the body except free-form maps. */
function addExtra(v: unknown, key = ''): boolean {
  if (Array.isArray(v)) return v.map((x) => addExtra(x)).some(Boolean);
  if (
    !v ||
    typeof v !== 'object' ||
    ['metadata', 'taxRates', 'config', 'usageFilter', 'properties', 'details'].includes(key)
  )
    return false;
  const o = v as Json;
  let changed = false;
  for (const [k, x] of Object.entries(o)) changed = addExtra(x, k) || changed;
  if (!('conformExtra' in o)) {
    o.conformExtra = 'extra';
    changed = true;
  }
  return changed;
}

/** Benign: every object of an operation's answers (success and errors) carries an extra field. */
export function extraFieldVariants(spec: Spec, ops: Operation[]): GeneratedFault[] {
  return ops.map((op) => {
    const { area, suites } = placement(op.operationId);
    const ok = documentedSuccess(op);
    const sample = ok ? fullSample(ok.schema) : { message: 'not found' };
    return {
      name: `gen-${op.operationId}-extra-fields`,
      area,
      kind: 'benign-extra-fields',
      operationId: op.operationId,
      benign: true,
      description: `every object in the answers of ${op.method} ${op.pathTemplate} carries an extra field conformExtra`,
      rules: [],
      suites,
      onResponse(r, res, ctx) {
        if (res.json === undefined || spec.findOperation(r.method, pathOf(r))?.operationId !== op.operationId) return;
        if (addExtra(res.json)) ctx.applied();
      },
      demo: {
        steps: [{ req: sampleRequest(op), res: json(ok ? 200 : 404, structuredClone(sample)) }],
        verify: (o: DemoOutcome) => expectAll([got(o)?.conformExtra === 'extra', 'no extra field added']),
      },
    } satisfies GeneratedFault;
  });
}
