/**
 * The state model of every documented resource a fixture hands out, derived from the contract:
 * for each schema annotated x-resource in spec/openapi.yaml and each fixture method declaring
 * that it gives an instance of it (`gives` in src/engine/fixtures/methods.ts), fast-check
 * sequences of its documented operations: reads by id, updates with generated valid and
 * boundary bodies, walks of its lists, and deletes where destructive scenarios may run on an
 * instance made for the run. No command judges: the check registry judges every answer (round
 * trips, deleted means gone, owners, list walks) and a finding it makes ends the sequence
 * (ModelHttp.send), which fast-check then shrinks to the shortest that still breaks a property,
 * reported with a replay.
 */
import fc from 'fast-check';
import { limitsTable, loadSpec, schemaBound, type Operation, type Resource, type Spec } from '../../contract/index.ts';
import type { ScenarioContext } from '../scenario/types.ts';
import { FIXTURE_DECLARATIONS, type FixtureDeclaration, type FixtureMethod, type Gives } from '../fixtures/methods.ts';
import { fromSpec, positiveRequests, requestPath } from '../generators/index.ts';
import type { ModelJudge } from './judge.ts';
import { walkList } from './lists.ts';
import type { ModelHttp } from './state.ts';
import type { StateModel } from './run.ts';

type Json = Record<string, any>;

/** A resource the fixtures hand out, with what the model may send to it. */
export interface Driven {
  resource: Resource;
  method: FixtureMethod;
  gives: Gives;
}

/** Every annotated resource a fixture method gives, from the contract and the fixture declarations. */
export function drivenResources(spec: Pick<Spec, 'resources'>): Driven[] {
  const out: Driven[] = [];
  for (const [method, decl] of Object.entries(FIXTURE_DECLARATIONS) as [FixtureMethod, FixtureDeclaration][]) {
    const gives = decl.gives;
    const resource = gives && spec.resources.all.find((r) => r.schema === gives.schema);
    if (gives && resource) out.push({ resource, method, gives });
  }
  return out;
}

interface Instance {
  key?: string;
  scope: Record<string, string>;
  deleted: boolean;
}

export interface ResourcesModel {
  driven: Driven;
  instance: Instance;
  deletes: boolean;
}

export interface ResourcesReal {
  http: ModelHttp;
  judge: ModelJudge;
}

type Cmd = fc.AsyncCommand<ResourcesModel, ResourcesReal>;

const brief = (v: unknown) => {
  const s = JSON.stringify(v) ?? 'undefined';
  return s.length > 100 ? `${s.slice(0, 97)}...` : s;
};

/** The path of an operation naming the instance by its key (its last path parameter). */
function instancePath(spec: Spec, operationId: string, key: string): string {
  const params = spec.operation(operationId)?.parameters.filter((p) => p.in === 'path');
  const named = params?.at(-1)?.name ?? 'id';
  return spec.pathFor(operationId, { [named]: key });
}

class Read implements Cmd {
  constructor(readonly spec: Spec) {}
  check = (m: Readonly<ResourcesModel>) => m.instance.key !== undefined && m.driven.resource.read.length > 0;
  toString = () => 'read it';
  async run(m: ResourcesModel, r: ResourcesReal): Promise<void> {
    await r.http.send('GET', instancePath(this.spec, m.driven.resource.read[0], m.instance.key!));
  }
}

class Update implements Cmd {
  constructor(
    readonly operationId: string,
    readonly plan: { query: Json; body: unknown },
  ) {}
  check = (m: Readonly<ResourcesModel>) =>
    m.instance.key !== undefined && !m.driven.gives.shared && m.driven.resource.update.includes(this.operationId);
  toString = () => `${this.operationId} ${brief(this.plan.body)}`;
  async run(m: ResourcesModel, r: ResourcesReal): Promise<void> {
    const spec = await loadSpec();
    const op = spec.operation(this.operationId)!;
    const named = op.parameters.filter((p) => p.in === 'path').at(-1)?.name;
    const path = requestPath({
      operationId: this.operationId,
      method: op.method,
      pathTemplate: op.pathTemplate,
      pathParams: named ? { [named]: m.instance.key } : {},
      query: this.plan.query,
    });
    await r.http.send(op.method, path, this.plan.body);
  }
}

/** A walk spends at most this share of a rate-limited list's bucket (other scenarios draw on it too). */
const WALK_SHARE_OF_LIMIT = 1 / 15;

/** The pages a walk may read of a list the rules limit, and the largest page its `limit` parameter allows. */
export function walkBudget(
  op: Operation,
  limit: { limit: number } | undefined,
): { pages: number; maxPageSize: number } | undefined {
  const max = (op.parameters.find((p) => p.in === 'query' && p.name === 'limit')?.schema as { maximum?: unknown })
    ?.maximum;
  // No larger page the contract allows: the walk keeps its page size.
  if (!limit || typeof max !== 'number') return undefined;
  return { pages: Math.max(2, Math.floor(limit.limit * WALK_SHARE_OF_LIMIT)), maxPageSize: max };
}

class Walk implements Cmd {
  constructor(
    readonly spec: Spec,
    readonly pageSize: number,
  ) {}
  check = (m: Readonly<ResourcesModel>) => m.driven.resource.list.length > 0;
  toString = () => `walk its list ${this.pageSize} at a time`;
  async run(m: ResourcesModel, r: ResourcesReal): Promise<void> {
    const list = m.driven.resource.list[0];
    const op = this.spec.operation(list.operation)!;
    let path = op.pathTemplate;
    const query = new URLSearchParams();
    for (const [field, source] of Object.entries(list.scope)) {
      const value = m.instance.scope[field];
      if (source.in === 'key' || value === undefined) continue;
      if (source.in === 'path') path = path.replace(`{${source.name}}`, encodeURIComponent(value));
      else query.set(source.name, value);
    }
    if (/\{/.test(path)) return;
    const q = query.toString();
    const budget = walkBudget(op, limitsTable(await this.spec.rules())[list.operation]);
    await walkList(r.http, {
      label: `GET ${path}`,
      path: q ? `${path}?${q}` : path,
      pageSize: this.pageSize,
      maxPages: 20,
      ...(budget ? { budget } : {}),
    });
  }
}

class Delete implements Cmd {
  constructor(readonly spec: Spec) {}
  check = (m: Readonly<ResourcesModel>) =>
    m.deletes && m.instance.key !== undefined && m.driven.resource.delete.length > 0;
  toString = () => 'delete it';
  async run(m: ResourcesModel, r: ResourcesReal): Promise<void> {
    await r.http.send('DELETE', instancePath(this.spec, m.driven.resource.delete[0], m.instance.key!));
    m.instance.deleted = true;
  }
}

/** Reads the instance a fixture result names. */
function instanceOf(gives: Gives, result: unknown): Instance {
  const got = (result ?? {}) as Json;
  const raw = gives.key === undefined ? undefined : got[gives.key];
  const key = Array.isArray(raw) ? raw[0] : raw;
  const scope: Record<string, string> = {};
  for (const [field, from] of Object.entries(gives.scope ?? {}))
    if (typeof got[from] === 'string') scope[field] = got[from];
  return { ...(typeof key === 'string' ? { key } : {}), scope, deleted: false };
}

/** The model of one driven resource; `deletes` says whether DELETE may be sent on the run's target. */
export async function resourcesModel(
  t: ScenarioContext,
  driven: Driven,
  deletes: boolean,
): Promise<StateModel<ResourcesModel, ResourcesReal>> {
  const spec = await loadSpec();
  const { resource, gives, method } = driven;
  const commands: fc.Arbitrary<Cmd>[] = [fc.constant(new Read(spec))];
  for (const operationId of resource.update) {
    const op = fromSpec(spec, operationId);
    const named = spec
      .operation(operationId)!
      .parameters.filter((p) => p.in === 'path')
      .at(-1)?.name;
    // The instance's key is pinned when the model sends it; here it stands in for the generation.
    const plans = positiveRequests(op, named ? { [named]: 'instance' } : {});
    commands.push(plans.map((p) => new Update(operationId, { query: p.query, body: p.body })));
    commands.push(plans.map((p) => new Update(operationId, { query: p.query, body: p.body })));
  }
  if (resource.list.length) {
    // Pages of the smallest and the largest size its list's limit takes.
    const limit = `${resource.list[0].operation}:query.limit`;
    const sizes = [schemaBound(spec, limit, 'minimum'), schemaBound(spec, limit, 'maximum')];
    commands.push(fc.constantFrom(...sizes).map((n) => new Walk(spec, n)));
  }
  if (resource.delete.length && deletes) commands.push(fc.constant(new Delete(spec)));
  return {
    label: `${resource.object ?? resource.schema} model (fixture ${method})`,
    parts: [],
    commands,
    async setup(http, judge) {
      const result = await t.fixture((f) =>
        (f[method] as (...a: unknown[]) => Promise<unknown>)(...(gives.args ?? [])),
      );
      return {
        model: { driven, instance: instanceOf(gives, result), deletes },
        real: { http, judge },
      };
    },
  };
}
