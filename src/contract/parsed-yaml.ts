/**
 * YAML parsed once per text, not once per process: spec/openapi.yaml and spec/rules.yaml take
 * the `yaml` parser about half a second together, and a run loads them in every suite worker
 * and in the reference. The parsed tree is kept as JSON under the system's temporary folder,
 * named by a hash of the text, so an edited file is parsed afresh and a stale copy is never read.
 * Failing to read or write the copy only costs the parse.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';

/** Bumped when what is kept changes shape. */
const FORMAT = 1;
const DIR = join(tmpdir(), 'billing-conform-parsed');

/** `text` parsed as YAML (the `yaml` package's parse), or its copy kept from an earlier parse of the same text. */
export function parseYamlKept(text: string): unknown {
  const file = join(DIR, `${createHash('sha256').update(`${FORMAT}\n${text}`).digest('hex').slice(0, 40)}.json`);
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    // Not kept yet (or unreadable): parse it.
  }
  const doc = parse(text) as unknown;
  try {
    mkdirSync(DIR, { recursive: true });
    // Written aside and renamed: a process reading at the same time sees the whole copy or none.
    const partial = `${file}.${process.pid}.${Math.random().toString(36).slice(2)}`;
    writeFileSync(partial, JSON.stringify(doc));
    renameSync(partial, file);
  } catch {
    // A read-only or full temporary folder: the next process parses again.
  }
  return doc;
}
