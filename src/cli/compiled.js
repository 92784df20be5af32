/**
 * The CLI compiled to JavaScript once and kept on disk, so that a command starts without the
 * TypeScript loader (its start costs about 0.2 s and a thread of its own, and every module then
 * loads through it). Plain JavaScript, imported by bin/conform.js before anything else.
 *
 * The sources under src/ are bundled with esbuild (one file per entry, shared chunks, the
 * packages left as imports) into node_modules/.cache/conform-js/<key>/, where the key hashes
 * every source file's path, size and modification time with the versions involved: an edited
 * source builds a new bundle on the next start. Each file's `import.meta.url` is kept as the
 * source file's own URL, so paths relative to a source (spec/, package.json, the suites'
 * setup file) resolve as they do from the sources. A bundle is written beside its final place
 * and renamed there, so runs starting together never see half of one.
 *
 * When the bundle cannot be built or written (no esbuild, a read-only install), the caller
 * falls back to the sources through tsx: slower to start, the same behaviour.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const CACHE = join(ROOT, 'node_modules', '.cache', 'conform-js');

/** The entries bin/conform.js starts: the CLI, and the bundled reference's own process. */
export const ENTRIES = { main: 'src/cli/main.ts', 'reference-child': 'src/cli/reference-child.ts' };

function sourceFiles(dir, out = []) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) sourceFiles(path, out);
    else if (/\.(ts|js|mjs|cjs|json)$/.test(entry.name)) out.push(path);
  }
  return out;
}

function versionOf(pkg) {
  try {
    return JSON.parse(readFileSync(join(ROOT, 'node_modules', pkg, 'package.json'), 'utf8')).version;
  } catch {
    return 'none';
  }
}

/** The key of the sources under `root` as they are now (about 10 ms for the whole tree). */
export function sourcesKey(root = ROOT) {
  const hash = createHash('sha256');
  hash.update(`${process.version} esbuild ${versionOf('esbuild')} ${JSON.stringify(ENTRIES)}\n`);
  hash.update(readFileSync(join(root, 'package.json')));
  for (const file of sourceFiles(join(root, 'src')).sort()) {
    const s = statSync(file);
    hash.update(`${relative(root, file)} ${s.size} ${s.mtimeMs}\n`);
  }
  return hash.digest('hex').slice(0, 16);
}

/** Bundles the entries into `outdir` (esbuild, loaded only when a build is needed). */
async function bundle(outdir) {
  const { build } = await import('esbuild');
  await build({
    absWorkingDir: ROOT,
    entryPoints: ENTRIES,
    outdir,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: `node${process.versions.node.split('.')[0]}`,
    packages: 'external',
    sourcemap: 'linked',
    logLevel: 'silent',
    plugins: [
      {
        name: 'source-urls',
        setup(b) {
          b.onLoad({ filter: /[\\/]src[\\/].*\.(ts|js)$/ }, (args) => ({
            contents: readFileSync(args.path, 'utf8').replaceAll(
              'import.meta.url',
              JSON.stringify(pathToFileURL(args.path).href),
            ),
            loader: args.path.endsWith('.ts') ? 'ts' : 'js',
          }));
        },
      },
    ],
  });
}

/**
 * The URL of an entry's compiled module for the current sources, built first when missing;
 * undefined when it cannot be built (the caller runs the sources instead).
 */
export async function compiledEntry(name) {
  try {
    const key = sourcesKey();
    const dir = join(CACHE, key);
    const file = join(dir, `${name}.js`);
    if (!existsSync(file)) {
      const tmp = `${dir}.${process.pid}.tmp`;
      rmSync(tmp, { recursive: true, force: true });
      mkdirSync(dirname(tmp), { recursive: true });
      await bundle(tmp);
      try {
        renameSync(tmp, dir);
      } catch {
        // Another run renamed its bundle of the same sources first: use that one.
        rmSync(tmp, { recursive: true, force: true });
      }
      prune(key);
    }
    return existsSync(file) ? pathToFileURL(file).href : undefined;
  } catch {
    return undefined;
  }
}

/** A bundle unused this long is removed (a run lasts at most 30 minutes and loads its chunks lazily). */
const STALE_MS = 24 * 60 * 60 * 1000;

/** Removes bundles of earlier sources left a day ago or more (best effort). */
function prune(keep) {
  try {
    for (const name of readdirSync(CACHE)) {
      const path = join(CACHE, name);
      if (name !== keep && Date.now() - statSync(path).mtimeMs > STALE_MS)
        rmSync(path, { recursive: true, force: true });
    }
  } catch {
    // Nothing to prune.
  }
}
