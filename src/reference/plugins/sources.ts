/** Sources and their auto-acceptance rules: create (extensions), PATCH changes only given fields. */
import { notFound } from '../domain/errors.ts';
import { newId, PREFIX } from '../domain/ids.ts';
import { TYPES } from '../domain/services/store.ts';
import type { ResourcePlugin } from '../http/plugin.ts';
import { created, merchant } from './common.ts';

const RULE_FIELDS = ['conditions', 'description', 'enabled', 'name', 'order'] as const;

export const sourcesPlugin: ResourcePlugin = {
  name: 'sources',
  async register(app, { repo }) {
    app.post('/v0/sources', { config: { operationId: 'createSource' } }, async (request, reply) => {
      const m = merchant(request);
      const body = request.body as { name: string };
      const source = await repo.insert(
        TYPES.source,
        m,
        { object: 'source', merchantId: m, name: body.name },
        { prefix: PREFIX.source, id: newId(PREFIX.source) },
      );
      return created(reply, source);
    });

    app.post('/v0/sourceRules', { config: { operationId: 'createSourceRule' } }, async (request, reply) => {
      const m = merchant(request);
      const body = request.body as {
        sourceId: string;
        name: string;
        description: string;
        conditions: unknown[];
        enabled?: boolean;
        order?: number;
      };
      if (!(await repo.getForShare(TYPES.source, body.sourceId, m)))
        throw notFound('Source', body.sourceId, 'SOURCE_NOT_FOUND');
      const rule = await repo.insert(
        TYPES.sourceRule,
        m,
        {
          object: 'source_rule',
          sourceId: body.sourceId,
          name: body.name,
          description: body.description,
          conditions: body.conditions,
          enabled: body.enabled ?? true,
          order: body.order ?? 0,
          evaluationCount: 0,
          matchCount: 0,
          createdBy: null,
          lastEvaluatedAt: null,
        },
        { prefix: PREFIX.sourceRule, id: newId(PREFIX.sourceRule) },
      );
      return created(reply, rule);
    });

    app.patch('/v0/sourceRules/:ruleId', { config: { operationId: 'updateSourceRule' } }, async (request) => {
      const { ruleId } = request.params as { ruleId: string };
      const body = (request.body ?? {}) as Record<string, unknown>;
      const patch: Record<string, unknown> = {};
      for (const k of RULE_FIELDS) if (body[k] !== undefined) patch[k] = body[k];
      const rule = await repo.update(TYPES.sourceRule, ruleId, merchant(request), patch);
      if (!rule) throw notFound('Source rule', ruleId, 'SOURCE_RULE_NOT_FOUND');
      return rule;
    });
  },
};
