import { defineCheck, finding } from './types.ts';

/** application/json, optionally with parameters (`; charset=utf-8`); +json suffixes are not the documented type. */
export function isJsonContentType(value: string | undefined): boolean {
  if (!value) return false;
  const mediaType = value.split(';')[0].trim().toLowerCase();
  return mediaType === 'application/json';
}

export const contentType = defineCheck({
  name: 'content-type',
  ruleIds: ['CONV.CONTENT_TYPE.JSON'],
  description: 'A response with a body declares content type application/json (parameters such as charset allowed).',
  evaluate(ex) {
    if (ex.status === undefined || ex.rawBody.trim() === '') return;
    const ct = ex.responseHeaders['content-type'];
    if (isJsonContentType(ct)) return { judged: ['CONV.CONTENT_TYPE.JSON'], findings: [] };
    return {
      judged: ['CONV.CONTENT_TYPE.JSON'],
      findings: [
        finding(
          'content-type',
          ['CONV.CONTENT_TYPE.JSON'],
          'Body is not declared as application/json',
          `${ex.method} ${ex.path} → ${ex.status}: content-type is ${ct ? `'${ct}'` : 'missing'}; bodies are JSON (application/json).`,
          ex,
        ),
      ],
    };
  },
});
