/**
 * Faults on partial updates, one pair per documented PATCH body field: the field is left
 * unapplied (the target ignores it), or the target wipes the field whenever an update does
 * not send it (as a full replacement would). Fields whose representation the document does
 * not show give indeterminate cases.
 */
import type { Operation, Spec } from '../../contract/index.ts';
import type { FaultContext, ProxyRequest } from '../fault-proxy.ts';
import { bodyOf, expectAll, got, is2xx, isObj, json, pathOf, stateMap, T0, type Json } from '../catalog/helpers.ts';
import type { DemoOutcome } from '../catalog/types.ts';
import { emptyOf, flatten, fullSample } from './fields.ts';
import { placement } from './ops.ts';
import { documentedSuccess, sampleRequest } from './response.ts';
import type { GeneratedFault } from './types.ts';
import type { JsonSchema } from '../../engine/generators/schema.ts';

/** Body fields shown in the representation under another name. */
const SHOWN_AS: Record<string, { field: string; value: (sent: unknown) => unknown; wiped: unknown }> = {
  archived: { field: 'archivedAt', value: (sent) => (sent === true ? T0 : null), wiped: null },
};

interface PatchField {
  op: Operation;
  name: string;
  requiredInBody: boolean;
  /** The field of the answer that shows it, and its schema there. */
  shown: string;
  shownSchema: JsonSchema;
  requiredInAnswer: boolean;
  /** Why the document does not make an ignored value observable, if so. */
  indeterminate?: string;
  /** Why it does not make a wiped value observable, if so. */
  wipeIndeterminate?: string;
}

function patchFields(op: Operation): PatchField[] {
  const body = op.requestBody?.schema ? flatten(op.requestBody.schema) : undefined;
  const ok = documentedSuccess(op);
  if (!body?.properties || !ok) return [];
  const answer = flatten(ok.schema);
  const out: PatchField[] = [];
  for (const [name, raw] of Object.entries(body.properties)) {
    const s = flatten(raw);
    if (s['x-extension'] !== undefined) continue;
    const shown = SHOWN_AS[name]?.field ?? name;
    const shownSchema = answer.properties?.[shown] ? flatten(answer.properties[shown]) : undefined;
    if (!shownSchema) continue;
    const noted = (x: JsonSchema) => x['x-not-shown'] !== undefined || x['x-reference-choice'] !== undefined;
    const open = [s, shownSchema].find(noted);
    out.push({
      op,
      name,
      requiredInBody: (body.required ?? []).includes(name),
      shown,
      shownSchema,
      requiredInAnswer: (answer.required ?? []).includes(shown),
      ...(open
        ? {
            indeterminate: `how ${name} appears in the answer is not shown (${String(open['x-not-shown'] ?? open['x-reference-choice'])})`,
          }
        : {}),
      ...(noted(shownSchema)
        ? {
            wipeIndeterminate:
              `the document does not show ${shown} in the answer ` +
              `(${String(shownSchema['x-not-shown'] ?? shownSchema['x-reference-choice'])})`,
          }
        : {}),
    });
  }
  return out;
}

/** The resource a request of `op` is about: its path id, or the path itself. */
function resourceOf(spec: Spec, r: ProxyRequest, op: Operation): string | undefined {
  const m = spec.matchPath(r.method, pathOf(r));
  if (m?.operation.operationId !== op.operationId) return undefined;
  return Object.values(m.params)[0] ?? `${pathOf(r)}|${r.headers.authorization ?? ''}`;
}

/** Representations carrying resource `id` in a body (the body itself or a list's items). */
function carrying(body: unknown, id: string): Json[] {
  if (!isObj(body)) return [];
  const items = Array.isArray(body.data) ? body.data.filter(isObj) : [];
  return [body, ...items].filter((x) => x.id === id);
}

/** Another value of the same type. */
function changed(v: unknown): unknown {
  return typeof v === 'boolean' ? !v : typeof v === 'number' ? v + 1 : typeof v === 'string' ? `${v}2` : v;
}

function unapplied(
  spec: Spec,
  f: PatchField,
  base: Omit<GeneratedFault, 'onRequest' | 'onResponse' | 'demo' | 'kind' | 'name' | 'description'>,
): GeneratedFault {
  const last = (ctx: FaultContext) => stateMap<string, unknown>(ctx, 'last');
  const sample = fullSample(documentedSuccess(f.op)!.schema) as Json;
  const sent = fullSample(f.op.requestBody!.schema) as Json;
  return {
    ...base,
    name: `gen-${f.op.operationId}-${f.name}-unapplied`,
    kind: 'patch-unapplied',
    description:
      `${f.op.method} ${f.op.pathTemplate} ignores the ${f.name} it is sent` +
      (f.requiredInBody ? ' (keeps the value it had)' : ''),
    onRequest(r, ctx) {
      const b = bodyOf(r);
      const id = resourceOf(spec, r, f.op);
      if (!id || !b || !(f.name in b)) return;
      if (!f.requiredInBody) delete b[f.name];
      else if (last(ctx).has(id) && b[f.name] !== last(ctx).get(id)) b[f.name] = last(ctx).get(id);
      else return;
      ctx.applied();
    },
    onResponse(r, res, ctx) {
      const id = resourceOf(spec, r, f.op);
      const shown = bodyOf(res)?.[f.shown];
      if (id && is2xx(res) && shown !== undefined && !SHOWN_AS[f.name]) last(ctx).set(id, shown);
    },
    demo: f.requiredInBody
      ? {
          // A required field cannot be left out: the target gets the value it showed before.
          steps: [sent[f.name], changed(sent[f.name])].map((v) => ({
            req: sampleRequest(f.op, { [f.name]: v }),
            res: (fw: ProxyRequest) => json(200, { ...sample, [f.shown]: bodyOf(fw)![f.name] }),
          })),
          verify: (o: DemoOutcome) =>
            expectAll([
              JSON.stringify(bodyOf(o.forwarded ?? {})?.[f.name]) === JSON.stringify(sent[f.name]),
              `the new ${f.name} reached the target`,
            ]),
        }
      : {
          steps: [
            {
              req: sampleRequest(f.op, { [f.name]: sent[f.name] }),
              res: (fw) =>
                json(200, { ...sample, ...(f.name in (bodyOf(fw) ?? {}) ? { [f.shown]: bodyOf(fw)![f.name] } : {}) }),
            },
          ],
          verify: (o: DemoOutcome) =>
            expectAll([
              o.forwarded !== undefined && !(f.name in (bodyOf(o.forwarded) ?? {})),
              `${f.name} still reached the target`,
            ]),
        },
  };
}

function wipesUnsent(
  spec: Spec,
  f: PatchField,
  base: Omit<GeneratedFault, 'onRequest' | 'onResponse' | 'demo' | 'kind' | 'name' | 'description'>,
): GeneratedFault {
  const wiped = (ctx: FaultContext) => stateMap<string, boolean>(ctx, 'wiped');
  const wipedValue = SHOWN_AS[f.name]?.wiped ?? (f.requiredInAnswer ? emptyOf(f.shownSchema) : undefined);
  const wipe = (x: Json): boolean => {
    if (!(f.shown in x)) return false;
    if (wipedValue === undefined) return delete x[f.shown];
    if (JSON.stringify(x[f.shown]) === JSON.stringify(wipedValue)) return false;
    x[f.shown] = wipedValue;
    return true;
  };
  const sample = fullSample(documentedSuccess(f.op)!.schema) as Json;
  const other = Object.keys(flatten(f.op.requestBody!.schema).properties ?? {}).find((k) => k !== f.name);
  const otherValue = other ? (fullSample(f.op.requestBody!.schema) as Json)[other] : undefined;
  return {
    ...base,
    name: `gen-${f.op.operationId}-${f.name}-wiped-when-unsent`,
    kind: 'patch-wipes-unsent',
    description: `${f.op.method} ${f.op.pathTemplate} wipes ${f.shown} whenever an update does not send ${f.name} (a full replacement)`,
    onResponse(r, res, ctx) {
      if (!is2xx(res)) return;
      const id = resourceOf(spec, r, f.op);
      if (id && r.method === f.op.method) {
        if (f.name in (bodyOf(r) ?? {})) wiped(ctx).delete(id);
        else wiped(ctx).set(id, true);
      }
      let changed = false;
      for (const [w] of wiped(ctx)) for (const x of carrying(res.json, w)) changed = wipe(x) || changed;
      if (id && wiped(ctx).get(id) && !carrying(res.json, id).length && isObj(res.json))
        changed = wipe(res.json) || changed;
      if (changed) ctx.applied();
    },
    demo: {
      steps: [
        {
          req: sampleRequest(f.op, other ? { [other]: otherValue } : {}),
          res: json(200, {
            ...sample,
            id: sample.id ?? 'x_demo1',
            [f.shown]: sample[f.shown] ?? fullSample(f.shownSchema) ?? { set: true },
          }),
        },
      ],
      verify: (o: DemoOutcome) => {
        const b = got(o) ?? {};
        return expectAll([
          wipedValue === undefined ? !(f.shown in b) : JSON.stringify(b[f.shown]) === JSON.stringify(wipedValue),
          `${f.shown} not wiped: ${JSON.stringify(b[f.shown])}`,
        ]);
      },
    },
  };
}

/** Both faults for every documented PATCH body field shown in the answer. */
export function patchFaults(spec: Spec, ops: Operation[]): GeneratedFault[] {
  const out: GeneratedFault[] = [];
  for (const op of ops.filter((o) => o.method === 'PATCH')) {
    const { area, suites } = placement(op.operationId);
    const fields = patchFields(op);
    for (const f of fields) {
      const base = { area, operationId: op.operationId, field: f.name, rules: ['SCHEMA.RESPONSE.MATCHES'], suites };
      out.push(unapplied(spec, f, { ...base, ...(f.indeterminate ? { indeterminate: f.indeterminate } : {}) }));
      // A lone field cannot be left out of an update: nothing to wipe.
      if (fields.length > 1)
        out.push(
          wipesUnsent(spec, f, { ...base, ...(f.wipeIndeterminate ? { indeterminate: f.wipeIndeterminate } : {}) }),
        );
    }
  }
  return out;
}
