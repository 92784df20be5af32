/**
 * Forks the bundled reference server for `conform run` (src/cli/reference-child.ts, through
 * bin/conform.js). Plain JavaScript, so that bin/conform.js can fork it first thing, before
 * the TypeScript loader and vitest load: the reference boots on the other core meanwhile.
 *
 * The child is unreferenced until a run adopts it (src/cli/reference-process.ts), so that a
 * run that stops early (a configuration error) does not wait for it; when this process ends,
 * the IPC channel closes and the child ends too.
 */
import { fork } from 'node:child_process';
import { existsSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';

const BIN = fileURLToPath(new URL('../../bin/conform.js', import.meta.url));

export function forkReference() {
  const key = `sk_test_${randomBytes(12).toString('hex')}`;
  const child = fork(BIN, [], {
    // The key goes in the environment, never on a command line (visible in the process list).
    env: { ...process.env, CONFORM_API_KEY: key, CONFORM_REFERENCE_CHILD: '1' },
    // V8's default young generation: the server allocates per request, and small semi-spaces cost it time.
    execArgv: [],
    stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
  });
  let tail = '';
  child.stderr?.on('data', (d) => {
    tail = (tail + d).slice(-4000);
  });
  // Listening from the start: the child's one message may come before a run asks for it.
  const ready = new Promise((resolve) => {
    child.once('message', (m) => resolve(m));
    child.once('error', (err) => resolve({ error: err.message }));
    child.once('exit', (code, signal) => {
      const last = tail.trim().split('\n').at(-1);
      resolve({ error: `it exited (${signal ?? `code ${code}`}) before listening${last ? `: ${last}` : ''}` });
    });
  });
  child.unref();
  child.channel?.unref();
  child.stderr?.unref?.();
  return { key, child, ready };
}

/** Whether CI is set (to anything but empty, 0 or false): a run there gates something. */
export function inCi(env = process.env) {
  const v = env.CI?.trim().toLowerCase();
  return v !== undefined && v !== '' && v !== '0' && v !== 'false';
}

/**
 * Whether `conform run` with these arguments tests the bundled reference, as far as can be told
 * before the configuration is read: no target flag, no configuration file, not refused under CI,
 * not asking for help. A wrong guess costs a child that ends with this process.
 */
export function boundForReference(args, env = process.env) {
  const flag = (name) => args.some((a) => a === name || a.startsWith(`${name}=`));
  if (flag('--base-url') || flag('--config') || flag('--help') || args.includes('-h')) return false;
  if (existsSync('conform.config.yaml')) return false;
  return !inCi(env) || flag('--reference');
}
