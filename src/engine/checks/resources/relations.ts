/**
 * CONV.RELATIONS.NAME_RIGHT: every field that names another resource names the right one. Which
 * fields name which resource is declared once, in spec/openapi.yaml (x-resource relations); this
 * judge reads them and knows no resource by name: a relation annotated in a copy of the spec is
 * judged like the others. Each representation in a 2xx answer (a list's elements included) is
 * held against what the run knows of it: the request that answered it, the resource holding a
 * nested reference, and what its first answer named.
 */
import type { Relation, Resource } from '../../../contract/index.ts';
import { describeStatus, finding, isObject, type Check, type Evaluation, type StreamContext } from '../types.ts';
import { show } from '../answer.ts';
import { keyOf, type Item } from './ledger.ts';

const RULE = 'CONV.RELATIONS.NAME_RIGHT';
const NAME = 'relations';
const PART: Record<Relation['names']['in'], string> = {
  path: 'request',
  query: 'request',
  body: 'request',
  key: 'holder',
  object: 'holder',
  stable: 'stable',
};

/** The rule part a relation judges: by its source. */
export function relationRule(r: Relation): string {
  return `${RULE}#${PART[r.names.in]}`;
}

/** Each value at a dotted path (`*`: every element of an array), with where it was found. */
export function valuesAt(body: unknown, field: string): { at: string; value: unknown }[] {
  let found: { at: string; value: unknown }[] = [{ at: '', value: body }];
  for (const seg of field.split('.')) {
    const next: typeof found = [];
    for (const f of found) {
      if (seg === '*') {
        if (Array.isArray(f.value)) f.value.forEach((v, i) => next.push({ at: `${f.at}.${i}`, value: v }));
      } else if (isObject(f.value) && f.value[seg] !== undefined)
        next.push({ at: `${f.at}.${seg}`, value: f.value[seg] });
    }
    found = next;
  }
  return found.map((f) => ({ at: f.at.slice(1), value: f.value }));
}

/** What the relation says the field names for this representation, and why; undefined when the run does not know. */
function expected(
  rel: Relation,
  r: Resource,
  item: Item,
  ctx: StreamContext,
  first: Map<string, unknown>,
  at: string,
): { value: unknown; why: string } | undefined {
  const src = rel.names;
  switch (src.in) {
    case 'path': {
      const v = ctx.request.params[src.name];
      return v === undefined ? undefined : { value: v, why: `the ${src.name} in the request's path` };
    }
    case 'query': {
      const v = ctx.request.query.get(src.name);
      return v === null ? undefined : { value: v, why: `the ${src.name} the request's query named` };
    }
    case 'body': {
      const sent = ctx.request.body;
      const v = isObject(sent) ? sent[src.name] : undefined;
      return v === undefined ? undefined : { value: v, why: `the ${src.name} the request sent` };
    }
    case 'key':
      return { value: item.key, why: `the ${r.object ?? r.schema} holding it (${item.key})` };
    case 'object':
      return r.object === undefined ? undefined : { value: r.object, why: `the kind of resource holding it` };
    case 'stable': {
      const k = `${keyOf(r, item.key)} ${at}`;
      return first.has(k)
        ? { value: first.get(k), why: 'what an earlier answer of it named (nothing changes it)' }
        : undefined;
    }
  }
}

export const relations: Check = {
  name: NAME,
  ruleIds: [`${RULE}#request`, `${RULE}#holder`, `${RULE}#stable`],
  description: 'Every field that names another resource (x-resource relations) names the right one.',
  open() {
    /** `Schema:key field.path` → the value its first answer named (relations whose source is `stable`). */
    const first = new Map<string, unknown>();
    return {
      observe(ex, ctx, op) {
        const s = ctx.shown;
        if (!s || !op || ctx.unauthenticated || ctx.brokenRequest || !s.bodyShown) return undefined;
        const r = s.resource;
        const judged = new Set<string>();
        const findings: Evaluation['findings'] = [];
        for (const rel of r.relations) {
          if (rel.on.length && !rel.on.includes(op.operationId)) continue;
          const rule = relationRule(rel);
          for (const item of s.items) {
            // An element of a list whose payload is not shown is the resource only when it names its kind.
            if (r.object !== undefined && item.body.object !== undefined && item.body.object !== r.object) continue;
            for (const { at, value } of valuesAt(item.body, rel.field)) {
              if (value === null || value === undefined) continue;
              const want = expected(rel, r, item, ctx, first, at);
              if (rel.names.in === 'stable') first.set(`${keyOf(r, item.key)} ${at}`, want?.value ?? value);
              if (!want) continue;
              judged.add(rule);
              if (value !== want.value)
                findings.push({
                  ...finding(
                    NAME,
                    [rule],
                    `The ${r.object ?? r.schema}'s ${rel.field} names another resource`,
                    `${describeStatus(ex)}: ${r.object ?? r.schema} ${item.key} has ${at} ${show(value)}; ` +
                      `it names ${want.why}: ${show(want.value)}.`,
                    ex,
                  ),
                  fields: [`/${at.split('.').join('/')}`],
                });
            }
          }
        }
        return judged.size ? { judged: [...judged], findings } : undefined;
      },
      // A write the judges cannot read may have changed anything a `stable` relation remembers.
      unread() {
        first.clear();
      },
    };
  },
};
