/**
 * The client's requests against the document: every request to a documented operation is
 * read against its documented constraints (types, required fields, enums, patterns,
 * bounds); a client sending what the document refuses is reported, per client.
 */
import type { PassiveUnit } from '../types.ts';
import { brokenConstraints } from '../../engine/generators/broken.ts';

export const CLIENT_REQUEST_RULE = 'VALIDATION.CLIENT.REQUEST_DOCUMENTED';

export const clientRequestsUnit: PassiveUnit = {
  name: 'client-requests',
  scope: 'client',
  title: "the client's requests against the documented constraints",
  ruleIds: [CLIENT_REQUEST_RULE],
  observe(o, ctx) {
    if (!o.documented || !o.operation) return;
    const { bodyNotJson } = o.request;
    const j = brokenConstraints(ctx.spec, { ...o.request, operationId: o.operation.operationId });
    if (!j.constrained && !bodyNotJson) return;
    const problems = [...(bodyNotJson ? ['the body is not JSON'] : []), ...j.broken.map((b) => b.what)];
    ctx.client(o.client).check([CLIENT_REQUEST_RULE], problems.length === 0, () => ({
      source: 'passive:client-requests',
      title: `Request the document refuses: ${o.operation!.operationId}`,
      message:
        `client ${o.client}: ${o.record.method} ${o.operation!.pathTemplate}: ${problems.slice(0, 5).join('; ')}` +
        `${problems.length > 5 ? `; and ${problems.length - 5} more` : ''}.`,
      exchange: o.exchange,
    }));
  },
};
