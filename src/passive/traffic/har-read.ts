/**
 * Reads the entries of a HAR file one at a time, without holding the file: a small scanner
 * finds each object of `log.entries` and parses it alone, so memory stays bounded by the
 * largest entry, not the file.
 */
import { createReadStream } from 'node:fs';
import { StringDecoder } from 'node:string_decoder';
import { HarError, type HarEntry } from './har-entry.ts';

interface Frame {
  kind: 'object' | 'array';
  /** Objects: the last key read. */
  key?: string;
  expectKey: boolean;
}

/**
 * Yields every entry of `log.entries` in file order; throws HarError when the file is not HAR.
 * `onLogField` is told the string fields of `log` named `_conform...` (what `conform proxy`
 * records about itself), wherever they stand.
 */
export async function* readHarEntries(
  path: string,
  onLogField?: (name: string, value: string) => void,
): AsyncGenerator<HarEntry> {
  const stack: Frame[] = [];
  let inString = false;
  let escape = false;
  let stringStart = -1;
  let carry = ''; // a string token cut by a chunk boundary
  let entryParts: string[] | undefined;
  let entryStart = 0;
  let entryDepth = -1;
  let sawEntries = false;
  let sawRoot = false;
  const decoder = new StringDecoder('utf8');
  const stream = createReadStream(path, { highWaterMark: 1 << 20 });
  const logField = (name: string, raw: string) => {
    try {
      onLogField?.(name, JSON.parse(`"${raw}"`) as string);
    } catch {
      // Not a string a recorder of ours wrote: ignored.
    }
  };
  const inEntries = () =>
    stack.length === 3 && stack[2].kind === 'array' && stack[1].key === 'entries' && stack[0].key === 'log';

  const scan = function* (chunk: string): Generator<HarEntry> {
    for (let i = 0; i < chunk.length; i++) {
      const c = chunk.charCodeAt(i);
      if (inString) {
        if (escape) escape = false;
        else if (c === 92 /* \ */) escape = true;
        else if (c === 34 /* " */) {
          inString = false;
          const top = stack[stack.length - 1];
          // Keys are only needed outside entries (log, entries), and are short.
          if (entryParts === undefined && top?.kind === 'object' && top.expectKey) {
            top.key = carry + chunk.slice(stringStart, i);
          } else if (onLogField && stack.length === 2 && top?.kind === 'object' && top.key?.startsWith('_conform')) {
            logField(top.key, carry + chunk.slice(stringStart, i));
          }
          carry = '';
        }
        continue;
      }
      switch (c) {
        case 34:
          inString = true;
          stringStart = i + 1;
          carry = '';
          break;
        case 123: // {
        case 91: // [
          if (stack.length === 0) {
            if (c !== 123) throw new HarError('not a HAR file: the top level is not an object');
            sawRoot = true;
          }
          if (c === 123 && entryParts === undefined && inEntries()) {
            entryParts = [];
            entryStart = i;
            entryDepth = stack.length;
          }
          if (c === 91 && stack.length === 2 && stack[1].key === 'entries' && stack[0].key === 'log') sawEntries = true;
          stack.push({ kind: c === 123 ? 'object' : 'array', expectKey: c === 123 });
          break;
        case 125: // }
        case 93: // ]
          stack.pop();
          if (c === 125 && entryParts !== undefined && stack.length === entryDepth) {
            entryParts.push(chunk.slice(entryStart, i + 1));
            const textOf = entryParts.join('');
            entryParts = undefined;
            let entry: HarEntry;
            try {
              entry = JSON.parse(textOf) as HarEntry;
            } catch (err) {
              throw new HarError(`an entry of log.entries is not valid JSON: ${(err as Error).message}`);
            }
            yield entry;
          }
          break;
        case 58: {
          // :
          const top = stack[stack.length - 1];
          if (top?.kind === 'object') top.expectKey = false;
          break;
        }
        case 44: {
          // ,
          const top = stack[stack.length - 1];
          if (top?.kind === 'object') top.expectKey = true;
          break;
        }
        default:
          break;
      }
    }
    if (inString && entryParts === undefined) carry += chunk.slice(stringStart);
    stringStart = 0;
    if (entryParts !== undefined) {
      entryParts.push(chunk.slice(entryStart));
      entryStart = 0;
    }
  };

  try {
    for await (const buf of stream) yield* scan(decoder.write(buf as Buffer));
    yield* scan(decoder.end());
  } catch (err) {
    if (err instanceof HarError) throw err;
    const code = (err as NodeJS.ErrnoException).code;
    throw new HarError(
      code === 'ENOENT'
        ? `no such file: ${path}`
        : code === 'EISDIR'
          ? `${path} is a directory`
          : `cannot read ${path}: ${(err as Error).message}`,
    );
  } finally {
    stream.destroy();
  }
  if (!sawRoot) throw new HarError('not a HAR file: it holds no JSON object');
  if (!sawEntries) throw new HarError('not a HAR file: no log.entries array');
  if (stack.length) throw new HarError('the HAR file ends in the middle of its JSON (cut short?)');
}
