import { startReferenceServer, type RunningReference } from '../../../src/reference/index.ts';
import type { ReferenceOptions } from '../../../src/reference/config.ts';

export interface TestServer extends RunningReference {
  /** `app.inject` with the sandbox key unless `key` is given (`null`: no Authorization). */
  call(
    method: string,
    url: string,
    opts?: { body?: unknown; key?: string | null; headers?: Record<string, string>; payload?: string },
  ): Promise<{ status: number; headers: Record<string, unknown>; body: any }>;
}

export async function startTestServer(options: ReferenceOptions = {}): Promise<TestServer> {
  const ref = await startReferenceServer({ port: 0, ...options });
  const call: TestServer['call'] = async (method, url, opts = {}) => {
    const headers: Record<string, string> = { ...(opts.headers ?? {}) };
    const key = opts.key === undefined ? ref.apiKey : opts.key;
    if (key !== null) headers.authorization = `Bearer ${key}`;
    let payload = opts.payload;
    if (opts.body !== undefined) {
      payload = JSON.stringify(opts.body);
      headers['content-type'] ??= 'application/json';
    }
    const res = await ref.app.inject({ method: method as any, url, headers, payload });
    let body: any = res.body;
    try {
      body = res.body ? JSON.parse(res.body) : undefined;
    } catch {
      // leave as text
    }
    return { status: res.statusCode, headers: res.headers, body };
  };
  return Object.assign(ref, { call });
}
