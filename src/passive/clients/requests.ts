/**
 * The client's requests against the document: every request to a documented operation is
 * read against its documented constraints (types, required fields, enums, patterns,
 * bounds); a client sending what the document refuses is reported, per client.
 */
import type { PassiveUnit } from '../types.ts';

export const CLIENT_REQUEST_RULE = 'VALIDATION.CLIENT.REQUEST_DOCUMENTED';

export const clientRequestsUnit: PassiveUnit = {
  name: 'client-requests',
  scope: 'client',
  title: "the client's requests against the documented constraints",
  ruleIds: [CLIENT_REQUEST_RULE],
  observe(o, ctx) {
    if (!o.documented || !o.operation) return;
    // Read once by the judge, for the checks' context too.
    const { notJson, constrained, broken } = o.breaks;
    if (!constrained && !notJson) return;
    const problems = [...(notJson ? ['the body is not JSON'] : []), ...broken.map((b) => b.what)];
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
