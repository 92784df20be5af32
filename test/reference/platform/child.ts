import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const BIN = fileURLToPath(new URL('../../../bin/conform.js', import.meta.url));
const UNREAPED_PARENT = fileURLToPath(new URL('./unreaped-parent.mjs', import.meta.url));

export interface Child {
  proc: ChildProcess;
  baseUrl: string;
  merchantId: string;
  /** Everything printed so far. */
  output(): string;
  /** Resolves with the exit code (or signal name). */
  exited: Promise<number | string>;
}

/** Runs `conform serve ...args` and waits for its one "listening" line. */
export function spawnServe(args: string[], env: NodeJS.ProcessEnv = {}): Promise<Child> {
  const proc = spawn(process.execPath, [BIN, 'serve', '--port', '0', ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return listening(proc);
}

/**
 * Runs `conform serve ...args` under a parent that does not reap it (unreaped-parent.mjs): once
 * killed, the server stays a zombie until `reap()`. `proc` is the parent; `serverPid` the server.
 */
export async function spawnServeUnreaped(
  args: string[],
): Promise<Child & { serverPid: number; reap(): Promise<void> }> {
  const proc = spawn(process.execPath, [UNREAPED_PARENT, process.execPath, BIN, 'serve', '--port', '0', ...args], {
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const child = await listening(proc);
  const serverPid = Number(/^child (\d+)$/m.exec(child.output())![1]);
  const reap = async () => {
    proc.stdin!.end('\n');
    await child.exited;
  };
  return { ...child, serverPid, reap };
}

/** The state letter of /proc/<pid>/stat (R, S, Z...), or undefined when the process is gone. */
export function procState(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0];
  } catch {
    return undefined;
  }
}

function listening(proc: ChildProcess): Promise<Child> {
  let out = '';
  const exited = new Promise<number | string>((resolve) =>
    proc.on('exit', (code, signal) => resolve(code ?? signal ?? -1)),
  );
  return new Promise((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      out += chunk.toString();
      const m = /listening on (http:\/\/\S+) \(sandbox merchant (org_[a-zA-Z0-9]+)\)/.exec(out);
      if (m) resolve({ proc, baseUrl: m[1], merchantId: m[2], output: () => out, exited });
    };
    proc.stdout!.on('data', onData);
    proc.stderr!.on('data', onData);
    void exited.then((code) => reject(new Error(`conform serve exited (${code}) before listening:\n${out}`)));
  });
}

/** Runs `conform ...args` to completion. */
export function runConform(
  args: string[],
  env: NodeJS.ProcessEnv = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const proc = spawn(process.execPath, [BIN, ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  proc.stdout!.on('data', (c) => (stdout += c));
  proc.stderr!.on('data', (c) => (stderr += c));
  return new Promise((resolve) => proc.on('exit', (code) => resolve({ code, stdout, stderr })));
}
