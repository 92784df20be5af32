/** Finds and parses spec/openapi.yaml. */
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { parseYamlKept } from './parsed-yaml.ts';

/** Absolute path of spec/openapi.yaml, whatever the working directory. */
export const SPEC_PATH = fileURLToPath(new URL('../../spec/openapi.yaml', import.meta.url));

export class SpecError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SpecError';
  }
}

export type JsonObject = Record<string, any>;

/** Parses an OpenAPI document and checks the few things the loader relies on. */
export function parseDocument(text: string, origin = 'openapi.yaml'): JsonObject {
  let doc: unknown;
  try {
    doc = parseYamlKept(text);
  } catch (err) {
    throw new SpecError(`${origin}: not valid YAML: ${(err as Error).message}`);
  }
  if (!doc || typeof doc !== 'object' || Array.isArray(doc)) throw new SpecError(`${origin}: not an object`);
  const d = doc as JsonObject;
  if (typeof d.openapi !== 'string' || !d.openapi.startsWith('3.1'))
    throw new SpecError(`${origin}: expected openapi 3.1.x, got ${String(d.openapi)}`);
  if (!d.paths || typeof d.paths !== 'object') throw new SpecError(`${origin}: no paths`);
  return d;
}

export async function readDocument(path = SPEC_PATH): Promise<JsonObject> {
  return parseDocument(await readFile(path, 'utf8'), path);
}
