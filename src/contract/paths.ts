/** Matching concrete request paths against OpenAPI path templates. */

export interface PathTemplate {
  template: string;
  segments: Array<{ literal: string } | { param: string }>;
}

export function compileTemplate(template: string): PathTemplate {
  const segments = splitPath(template).map((s) => {
    const m = /^\{([^}]+)\}$/.exec(s);
    return m ? { param: m[1] } : { literal: s };
  });
  return { template, segments };
}

/** Values of path parameters, by name, for `fillTemplate` and `Spec.pathFor`. */
export type PathParams = Record<string, string | number>;

/**
 * The template with each `{name}` replaced by `encodeURIComponent(String(params[name]))`. Throws
 * an Error starting with `where` when a parameter of the template is missing (absent, undefined
 * or null) or `params` names one the template lacks.
 */
export function fillTemplate(template: string, params: PathParams = {}, where = template): string {
  const names = [...template.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
  const missing = names.filter((n) => params[n] === undefined || params[n] === null);
  if (missing.length) throw new Error(`${where}: missing path parameter(s) ${missing.join(', ')} for ${template}`);
  const extra = Object.keys(params).filter((n) => !names.includes(n));
  if (extra.length) throw new Error(`${where}: ${template} has no path parameter(s) ${extra.join(', ')}`);
  return template.replace(/\{([^}]+)\}/g, (_, name: string) => encodeURIComponent(String(params[name])));
}

/** Path segments without the query string or fragment; empty segments dropped. */
export function splitPath(path: string): string[] {
  const bare = path.split(/[?#]/, 1)[0];
  return bare.split('/').filter((s) => s !== '');
}

function decode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/** Path parameters when `path` fits the template, else undefined. */
export function matchTemplate(t: PathTemplate, path: string): Record<string, string> | undefined {
  const parts = splitPath(path);
  if (parts.length !== t.segments.length) return undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < parts.length; i++) {
    const seg = t.segments[i];
    if ('literal' in seg) {
      if (seg.literal !== parts[i]) return undefined;
    } else params[seg.param] = decode(parts[i]);
  }
  return params;
}

/**
 * Orders templates so that, at the first position where two differ, a literal segment comes
 * before a parameter: `/v2/invoices/lineItems` is tried before `/v2/invoices/{id}`.
 */
export function compareSpecificity(a: PathTemplate, b: PathTemplate): number {
  const n = Math.min(a.segments.length, b.segments.length);
  for (let i = 0; i < n; i++) {
    const la = 'literal' in a.segments[i];
    const lb = 'literal' in b.segments[i];
    if (la !== lb) return la ? -1 : 1;
  }
  return 0;
}
