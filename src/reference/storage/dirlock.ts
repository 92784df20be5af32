/**
 * One owner per data directory. PGlite opens its directory without any lock of its own:
 * two processes on one directory would each see only their own writes and lose each
 * other's on close. The owner holds `conform.lock` (its pid, host and process start);
 * a second process refuses to start, naming the holder; a lock left by a process that
 * no longer runs (kill -9, power loss) is taken over.
 */
import { closeSync, openSync, readFileSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import { join, resolve } from 'node:path';

export const LOCK_FILE = 'conform.lock';

interface Holder {
  pid: number;
  host: string;
  /** The process's start time in clock ticks since boot (Linux), to tell a reused pid apart. */
  startTicks?: number;
  startedAt: string;
}

export class DataDirectoryInUse extends Error {
  constructor(
    readonly dir: string,
    readonly holder: Holder,
  ) {
    const where = holder.host === hostname() ? `process ${holder.pid}` : `process ${holder.pid} on host ${holder.host}`;
    super(
      `database directory ${dir} is in use by ${where} (since ${holder.startedAt}): stop it, or give this server another directory`,
    );
    this.name = 'DataDirectoryInUse';
  }
}

/** Field 22 of /proc/<pid>/stat, or undefined where there is no /proc. */
function startTicks(pid: number | 'self'): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may hold spaces: count fields after its closing parenthesis.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[19]);
    return Number.isFinite(ticks) ? ticks : undefined;
  } catch {
    return undefined;
  }
}

function running(holder: Holder): boolean {
  if (holder.host !== hostname()) return true; // cannot tell: assume it runs
  if (holder.pid === process.pid) return true;
  try {
    process.kill(holder.pid, 0);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  // The pid runs; a different start time means it was reused by another process.
  const now = startTicks(holder.pid);
  return holder.startTicks === undefined || now === undefined || now === holder.startTicks;
}

function readHolder(path: string): Holder | null {
  try {
    const h = JSON.parse(readFileSync(path, 'utf8')) as Holder;
    return Number.isInteger(h?.pid) && typeof h.host === 'string' ? h : null;
  } catch {
    return null;
  }
}

function createExclusive(path: string, content: string): boolean {
  let fd: number;
  try {
    fd = openSync(path, 'wx', 0o644);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  }
  try {
    writeSync(fd, content);
  } finally {
    closeSync(fd);
  }
  return true;
}

const unlinkQuietly = (path: string) => {
  try {
    unlinkSync(path);
  } catch {
    // already gone
  }
};

const sleep = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

/** A lock file younger than this whose content is not readable yet is being written. */
const WRITING_MS = 2000;

/**
 * Takes the directory's lock, or throws DataDirectoryInUse naming the process that holds it.
 * Returns the release function (idempotent; removes the lock only while it is still ours).
 */
export function lockDataDirectory(dir: string): () => void {
  const path = join(dir, LOCK_FILE);
  const me: Holder = {
    pid: process.pid,
    host: hostname(),
    startTicks: startTicks('self'),
    startedAt: new Date().toISOString(),
  };
  const content = `${JSON.stringify(me)}\n`;
  for (let attempt = 0; attempt < 50; attempt++) {
    if (createExclusive(path, content)) {
      let released = false;
      return () => {
        if (released) return;
        released = true;
        const h = readHolder(path);
        if (h && h.pid === me.pid && h.host === me.host && h.startedAt === me.startedAt) unlinkQuietly(path);
      };
    }
    const holder = readHolder(path);
    if (holder && running(holder)) throw new DataDirectoryInUse(resolve(dir), holder);
    if (!holder) {
      let age = Infinity;
      try {
        age = Date.now() - statSync(path).mtimeMs;
      } catch {
        continue; // removed meanwhile: try again
      }
      if (age < WRITING_MS) {
        sleep(50);
        continue;
      }
    }
    // Stale: one process at a time takes it over (the takeover marker follows the same rule).
    const takeover = `${path}.takeover`;
    if (createExclusive(takeover, content)) {
      try {
        const again = readHolder(path);
        if (JSON.stringify(again) === JSON.stringify(holder)) unlinkQuietly(path);
      } finally {
        unlinkQuietly(takeover);
      }
    } else {
      const other = readHolder(takeover);
      if (other && !running(other)) unlinkQuietly(takeover);
      sleep(20);
    }
  }
  throw new Error(`cannot take the lock of database directory ${resolve(dir)} (${path} keeps changing)`);
}
