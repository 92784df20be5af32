/**
 * conform run's probe of the base URL (src/engine/target/probe.ts): route-level 404s
 * under the base URL are refused before the run (exit 2, one line), a target whose 404s are
 * the document's Error for an unknown resource, or that takes no unauthenticated request, is not.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { probe } from '../../src/engine/target/probe.ts';
import { HttpClient } from '../../src/engine/http/index.ts';
import { startReferenceServer, type RunningReference } from '../../src/reference/index.ts';
import { json, startFakeTarget, type Handler } from './helpers/fake-target.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const KEY = 'sk_test_probe_target_key_4b1d';

/** What a probe of `handler` throws (its message), or 'accepted'. */
async function probeOf(handler: Handler, path = ''): Promise<string> {
  const fake = await startFakeTarget(handler);
  try {
    return await outcome(`${fake.baseUrl}${path}`);
  } finally {
    await fake.close();
  }
}

async function outcome(baseUrl: string, key = KEY): Promise<string> {
  return probe(new HttpClient({ baseUrl, apiKey: key, apiKeyLabel: 'CONFORM_API_KEY' })).then(
    () => 'accepted',
    (err: Error) => `${err.name}: ${err.message}`,
  );
}

const html = (res: Parameters<Handler>[1], status: number, body: string) => {
  res.writeHead(status, { 'content-type': 'text/html' });
  res.end(body);
};
const pathOf = (req: Parameters<Handler>[0]) => new URL(req.url!, 'http://x').pathname;
/** A target whose API works under /v0 (alerts 400 without resourceId, unknown customers 404 in Error shape). */
const realApi = (req: Parameters<Handler>[0], res: Parameters<Handler>[1], unknownRoute: () => unknown) => {
  const path = pathOf(req);
  if (path === '/v0/alerts') return json(res, 400, { error: 'bad_request', message: 'resourceId is required' });
  const m = /^\/v0\/customers\/([^/]+)$/.exec(path);
  if (m) return json(res, 404, { message: `Customer ${m[1]} not found`, error: 'not_found' });
  return unknownRoute();
};

describe('the base URL is refused when its documented paths answer route-level 404s', () => {
  const refused =
    /^RunNotStarted: no API under the base URL http:\/\/127\.0\.0\.1:\d+\/api: GET \/v0\/alerts and GET \/v0\/customers\/\{id\} answered 404 .*check the base URL/;

  test.each([
    [
      "Fastify's route-not-found",
      (req: Parameters<Handler>[0], res: Parameters<Handler>[1]) =>
        json(res, 404, { message: `Route ${req.method}:${req.url} not found`, error: 'Not Found', statusCode: 404 }),
    ],
    [
      "Express's route-not-found",
      (req: Parameters<Handler>[0], res: Parameters<Handler>[1]) =>
        html(res, 404, `<!DOCTYPE html><pre>Cannot ${req.method} ${pathOf(req)}</pre>`),
    ],
    [
      "nginx's 404 page",
      (_req: Parameters<Handler>[0], res: Parameters<Handler>[1]) =>
        html(res, 404, '<html><head><title>404 Not Found</title></head><body><center>nginx</center></body></html>'),
    ],
    [
      "a mock's no-path-matched (problem+json)",
      (req: Parameters<Handler>[0], res: Parameters<Handler>[1]) =>
        json(res, 404, { type: 'about:blank#NO_PATH_MATCHED_ERROR', title: 'Route not resolved', detail: pathOf(req) }),
    ],
    [
      'a JSON 404 to everything, in the Error shape',
      (_req: Parameters<Handler>[0], res: Parameters<Handler>[1]) =>
        json(res, 404, { message: 'Not found', error: 'not_found' }),
    ],
    [
      'a JSON 404 to everything, echoing the path in the Error shape',
      (req: Parameters<Handler>[0], res: Parameters<Handler>[1]) =>
        json(res, 404, { message: `No route for ${req.method} ${pathOf(req)}`, error: 'not_found' }),
    ],
  ])('%s under a wrong base path: refused, one line', async (_name, notFound) => {
    const got = await probeOf(
      (req, res) =>
        pathOf(req).startsWith('/api/') ? notFound(req, res) : realApi(req, res, () => notFound(req, res)),
      '/api',
    );
    expect(got).toMatch(refused);
    expect(got).not.toContain('\n');
  });

  test('a real target: an unknown customer is a 404 Error, not a missing route', async () => {
    expect(await probeOf((req, res) => realApi(req, res, () => json(res, 404, { message: 'Not Found' })))).toBe(
      'accepted',
    );
  });

  test('a target missing only the alerts route is judged, not refused', async () => {
    const fastify404 = (req: Parameters<Handler>[0], res: Parameters<Handler>[1]) =>
      json(res, 404, { message: `Route ${req.method}:${req.url} not found`, error: 'Not Found', statusCode: 404 });
    const got = await probeOf((req, res) =>
      pathOf(req) === '/v0/alerts' ? fastify404(req, res) : realApi(req, res, () => fastify404(req, res)),
    );
    expect(got).toBe('accepted');
  });

  test('a target answering 401 without a key is reachable; one answering 401 to the key says so, not "base URL"', async () => {
    const guarded = (req: Parameters<Handler>[0], res: Parameters<Handler>[1]) =>
      req.headers.authorization === `Bearer ${KEY}`
        ? realApi(req, res, () => json(res, 404, { message: 'Not Found', error: 'not_found' }))
        : json(res, 401, { message: 'Unauthorized', error: 'unauthorized' });
    expect(await probeOf(guarded)).toBe('accepted');
    const always401 = await probeOf((_req, res) => json(res, 401, { message: 'Unauthorized' }));
    expect(always401).toMatch(
      /^RunNotStarted: the target at .* rejected the API key \(401 on GET \/v0\/customers\/\{id\}\)/,
    );
  });
});

describe('against the reference server', () => {
  let ref: RunningReference;
  const key = `sk_test_${randomBytes(12).toString('hex')}`;
  beforeAll(async () => {
    ref = await startReferenceServer({ host: '127.0.0.1', port: 0, database: 'memory', apiKey: key });
  });
  afterAll(async () => {
    await ref?.close();
  });

  test('its own base URL is accepted; the same server under /api is refused', async () => {
    expect(await outcome(ref.baseUrl, key)).toBe('accepted');
    expect(await outcome(`${ref.baseUrl}/api`, key)).toMatch(/^RunNotStarted: no API under the base URL .*\/api: /);
  });

  test('conform run --base-url <wrong path>: exit 2, one line naming the path tried and the base URL, nothing run', async () => {
    const base = `${ref.baseUrl}/api`;
    const r = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) =>
      execFile(
        process.execPath,
        [
          join(ROOT, 'bin/conform.js'),
          'run',
          '--base-url',
          base,
          '--suite',
          'customers',
          '--report-dir',
          join(tmpdir(), `conform-probe-${process.pid}`),
        ],
        { cwd: ROOT, env: { ...process.env, NO_COLOR: '1', CONFORM_API_KEY: key }, timeout: 120_000 },
        (err, stdout, stderr) => resolve({ code: err ? Number(err.code) : 0, stdout, stderr }),
      ),
    );
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    const lines = r.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(`conform run: no API under the base URL ${base}: GET /v0/alerts`);
    expect(lines[0]).toContain('check the base URL');
    expect(lines[0]).not.toContain(key);
  });
});
