/**
 * Targets no scenario was written for: servers that answer every request the same wrong way.
 * The adversarial tests run the whole suite against each and hold the verdicts to a reviewed
 * list of the rules such a target may truly pass.
 */
import { startFakeTarget, type FakeTarget } from '../engine/helpers/fake-target.ts';

export type AdversaryName = 'html-500' | 'empty-200' | 'echo' | 'json-404';

const json = (status: number, body: unknown) => ({
  status,
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify(body),
});

/** What each adversary answers, whatever it is asked. */
const ANSWER: Record<AdversaryName, (req: { bodyText: string }) => { status: number; headers: object; body: string }> =
  {
    'html-500': () => ({
      status: 500,
      headers: { 'content-type': 'text/html' },
      body: '<html><body><h1>500 Internal Server Error</h1></body></html>',
    }),
    'empty-200': () => json(200, {}),
    // The request's own JSON body, or an empty object.
    echo: (req) => {
      try {
        return json(200, req.bodyText ? JSON.parse(req.bodyText) : {});
      } catch {
        return json(200, {});
      }
    },
    'json-404': () => json(404, { error: 'not_found', message: 'Not Found' }),
  };

export function startAdversary(name: AdversaryName): Promise<FakeTarget> {
  return startFakeTarget((req, res) => {
    const a = ANSWER[name](req);
    res.writeHead(a.status, a.headers as Record<string, string>);
    res.end(a.body);
  });
}
