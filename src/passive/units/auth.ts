/**
 * Security applies globally: a request to a documented operation without a bearer token
 * gets 401. (Whether a given key is valid is not visible in traffic: not judged here.)
 */
import type { PassiveUnit } from '../types.ts';
import { expect } from './support.ts';

export const authUnit: PassiveUnit = {
  name: 'auth',
  scope: 'server',
  title: 'requests without a bearer token get 401',
  ruleIds: ['AUTH.BEARER.REQUIRED'],
  observe(o, ctx) {
    if (!o.documented || o.authenticated || o.record.status === undefined) return;
    const scheme =
      o.record.requestHeaders.authorization === undefined
        ? 'without Authorization'
        : 'with an Authorization that is not a bearer token';
    expect(
      ctx.server(this),
      'auth',
      o,
      'AUTH.BEARER.REQUIRED',
      o.record.status === 401,
      'A request without credentials was not refused with 401',
      () => `sent ${scheme}; every operation requires Authorization: Bearer <API_KEY>`,
    );
  },
};
