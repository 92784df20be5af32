#!/usr/bin/env -S node --max-semi-space-size=1
// Entry point of the `conform` CLI: runs the CLI compiled to JavaScript (src/cli/compiled.js),
// or its TypeScript sources through tsx when no compiled copy can be had.
import { setFlagsFromString } from 'node:v8';
import { compiledEntry } from '../src/cli/compiled.js';
import { boundForReference, forkReference } from '../src/cli/reference-fork.js';

// V8's young generation grows to 3 x 16 MB per isolate (main thread, suite workers); small
// semi-spaces keep a run's peak memory lower in the same time (npm run bench:suite prints it).
// The shebang sets it for the main thread; started as `node bin/conform.js`, this line still
// sets it for the suite workers, which are created later.
if (!process.execArgv.some((a) => a.startsWith('--max-semi-space-size'))) setFlagsFromString('--max-semi-space-size=1');

// A reader that stops early (`conform rules | head -1`) closes the pipe: the output is no longer
// wanted, which is no failure of the command.
for (const stream of [process.stdout, process.stderr])
  stream.on('error', (err) => {
    if (err?.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw err;
  });

/** Registers tsx's loader, for running the TypeScript sources when no compiled copy can be had. */
async function fromSources() {
  const { register } = await import('tsx/esm/api');
  register();
}

/** The compiled copy of an entry of src/cli (src/cli/compiled.js), unless the sources are asked for. */
const compiled = (name) => (process.env.CONFORM_FROM_SOURCES === '1' ? undefined : compiledEntry(name));

if (process.env.CONFORM_REFERENCE_CHILD === '1') {
  // The bundled reference of a run, forked by src/cli/reference-fork.js.
  const url = await compiled('reference-child');
  if (url) await import(url);
  else await fromSources().then(() => import('../src/cli/reference-child.ts'));
} else {
  const command = process.argv[2];
  // A run bound for the bundled reference forks it now: it boots while the rest loads.
  if (command === 'run' && boundForReference(process.argv.slice(3)))
    globalThis[Symbol.for('billing-conform.reference-child')] = forkReference();
  // Loaded before tsx's loader may be registered: vitest loaded through it costs memory for nothing.
  if (command === 'run' || command === 'faults') await import('vitest/node');
  const url = await compiled('main');
  const { main } = url ? await import(url) : await fromSources().then(() => import('../src/cli/main.ts'));
  process.exitCode = await main(process.argv.slice(2));
}
