/**
 * One owner per data directory. PGlite opens its directory without any lock of its own:
 * two processes on one directory would each see only their own writes and lose each
 * other's on close. The owner holds `conform.lock`, a record naming it whose mtime is a
 * lease the owner renews every second. A second process refuses to start while the owner
 * lives, naming it. A lock whose owner is gone is taken over, by one process at a time
 * (the takeover marker): on the same machine (same kernel boot and pid namespace) at once
 * when the pid has ended, is a zombie or was reused; otherwise once the lease has not been
 * renewed for STALE_MS, so a container whose host name changed takes over its own volume.
 */
import { randomUUID } from 'node:crypto';
import { closeSync, openSync, readFileSync, readlinkSync, statSync, unlinkSync, utimesSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import { join, resolve } from 'node:path';

export const LOCK_FILE = 'conform.lock';

/** How often the owner renews its lease. */
export const RENEW_MS = 1000;
/** A lease not renewed for this long has no owner (many renewals missed: not a busy moment). */
export const STALE_MS = 10_000;
/** However old a lease looks, it is watched this long for a renewal first (clocks may differ). */
const GRACE_MS = 3 * RENEW_MS;
/** A lock or marker younger than this whose record does not parse yet is being written. */
const WRITING_MS = 2000;
/** A takeover holds its marker for microseconds; a marker older than this was left by a crash. */
const MARKER_MAX_MS = 5000;
const POLL_MS = 100;

interface Holder {
  pid: number;
  host: string;
  /** Kernel boot id and pid namespace (Linux): where both match ours, the pid can be checked. */
  machine?: string;
  /** The process's start time in clock ticks since boot (Linux), to tell a reused pid apart. */
  startTicks?: number;
  startedAt: string;
  /** Tells this record from any other, a later one of the same process included. */
  token?: string;
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

const readQuietly = (read: () => string): string | undefined => {
  try {
    return read().trim();
  } catch {
    return undefined;
  }
};

/** State (field 3) and start time (field 22) of /proc/<pid>/stat, or undefined where there is no /proc. */
function procStat(pid: number | 'self'): { state: string; startTicks?: number } | undefined {
  const stat = readQuietly(() => readFileSync(`/proc/${pid}/stat`, 'utf8'));
  if (!stat) return undefined;
  // The command name (field 2) may hold spaces: count fields after its closing parenthesis.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = Number(fields[19]);
  return { state: fields[0], startTicks: Number.isFinite(ticks) ? ticks : undefined };
}

let machineId: string | undefined | null = null;
function thisMachine(): string | undefined {
  if (machineId === null) {
    const boot = readQuietly(() => readFileSync('/proc/sys/kernel/random/boot_id', 'utf8'));
    const pidns = readQuietly(() => readlinkSync('/proc/self/ns/pid'));
    machineId = boot && pidns ? `${boot} ${pidns}` : undefined;
  }
  return machineId;
}

/** Whether the holder's pid means the same process to us: same kernel boot and pid namespace. */
function sameMachine(holder: Holder): boolean {
  // A record without one (written where there is no /proc) has only its host name to go by.
  if (holder.machine === undefined) return holder.host === hostname();
  return holder.machine === thisMachine();
}

/** For a holder on this machine: whether its process still runs (a zombie has ended). */
function running(holder: Holder): boolean {
  try {
    process.kill(holder.pid, 0);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  const stat = procStat(holder.pid);
  if (!stat) return true; // no /proc: the signal said it runs
  if (stat.state === 'Z' || stat.state === 'X') return false;
  // A different start time means the pid was reused by another process.
  return holder.startTicks === undefined || stat.startTicks === undefined || stat.startTicks === holder.startTicks;
}

interface Seen {
  ino: number;
  mtimeMs: number;
  text: string;
  holder: Holder | null;
}

/** The file's identity, lease and record (null when it does not parse), or undefined when it is gone. */
function inspect(path: string): Seen | undefined {
  let st;
  try {
    st = statSync(path);
  } catch {
    return undefined;
  }
  let text = '';
  let holder: Holder | null = null;
  try {
    text = readFileSync(path, 'utf8');
    const h = JSON.parse(text) as Holder;
    if (Number.isInteger(h?.pid) && typeof h.host === 'string') holder = h;
  } catch {
    // empty, cut short or unreadable: judged by its age
  }
  return { ino: st.ino, mtimeMs: st.mtimeMs, text, holder };
}

const unchanged = (a: Seen | undefined, b: Seen) =>
  a !== undefined && a.ino === b.ino && a.mtimeMs === b.mtimeMs && a.text === b.text;

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

/** Removes a takeover marker left by a crash: unreadable, old, or naming a process that has ended. */
function clearStaleMarker(marker: string): void {
  const seen = inspect(marker);
  if (!seen) return;
  const age = Math.abs(Date.now() - seen.mtimeMs);
  const stale =
    age > MARKER_MAX_MS ||
    (seen.holder === null ? age > WRITING_MS : sameMachine(seen.holder) && !running(seen.holder));
  if (stale && unchanged(inspect(marker), seen)) unlinkQuietly(marker);
}

/**
 * Removes the stale lock `seen`, unless it changed since it was judged. One process at a time
 * (the marker): two could otherwise both remove it, the second one the first one's new lock.
 */
function takeOver(path: string, seen: Seen, content: string): void {
  const marker = `${path}.takeover`;
  if (!createExclusive(marker, content)) return clearStaleMarker(marker);
  try {
    if (unchanged(inspect(path), seen)) unlinkQuietly(path);
  } finally {
    if (inspect(marker)?.text === content) unlinkQuietly(marker);
  }
}

/** Watches a lease held elsewhere: renewed, stale, or not known yet. */
class LeaseWatch {
  private watched?: { seen: Seen; since: number };

  judge(seen: Seen): 'renewed' | 'stale' | 'wait' {
    const w = this.watched;
    if (!w || w.seen.ino !== seen.ino || w.seen.text !== seen.text) {
      this.watched = { seen, since: Date.now() };
      return 'wait';
    }
    if (seen.mtimeMs !== w.seen.mtimeMs) return 'renewed';
    // Not renewed for STALE_MS in all: the time it had aged when first seen counts, but
    // never less than GRACE_MS watched (the owner's clock may be behind ours).
    const aged = w.since - w.seen.mtimeMs;
    const needed = Math.min(STALE_MS, Math.max(GRACE_MS, STALE_MS - aged));
    return Date.now() - w.since >= needed ? 'stale' : 'wait';
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface LockOptions {
  /** Called when the lease was taken over while held; the default stops the process at once. */
  onLost?: (message: string) => void;
}

const stopProcess = (message: string) => {
  process.stderr.write(`${message}\n`);
  // No close: PGlite would write into a directory another process now owns.
  process.exit(1);
};

/**
 * Takes the directory's lock, or rejects with DataDirectoryInUse naming the process that
 * holds it. Resolves with the release function (idempotent; removes the lock only while it
 * is still ours).
 */
export async function lockDataDirectory(dir: string, options: LockOptions = {}): Promise<() => void> {
  const path = join(dir, LOCK_FILE);
  const me: Holder = {
    pid: process.pid,
    host: hostname(),
    machine: thisMachine(),
    startTicks: procStat('self')?.startTicks,
    startedAt: new Date().toISOString(),
    token: randomUUID(),
  };
  const content = `${JSON.stringify(me)}\n`;
  const lease = new LeaseWatch();
  const deadline = Date.now() + STALE_MS + 15_000;
  while (Date.now() < deadline) {
    if (createExclusive(path, content)) return hold(path, content, resolve(dir), options.onLost ?? stopProcess);
    const seen = inspect(path);
    if (!seen) continue; // removed meanwhile
    const { holder } = seen;
    let stale: boolean;
    if (holder === null) stale = Math.abs(Date.now() - seen.mtimeMs) > WRITING_MS;
    else if (sameMachine(holder)) {
      if (running(holder)) throw new DataDirectoryInUse(resolve(dir), holder);
      stale = true;
    } else {
      const verdict = lease.judge(seen);
      if (verdict === 'renewed') throw new DataDirectoryInUse(resolve(dir), holder);
      stale = verdict === 'stale';
    }
    if (stale) takeOver(path, seen, content);
    await sleep(stale ? 5 + Math.random() * 20 : POLL_MS);
  }
  throw new Error(`cannot take the lock of database directory ${resolve(dir)} (${path} keeps changing)`);
}

function hold(path: string, content: string, dir: string, onLost: (message: string) => void): () => void {
  let done = false;
  const renew = setInterval(() => {
    const now = inspect(path);
    if (now?.text === content) {
      try {
        const t = new Date();
        utimesSync(path, t, t);
      } catch {
        // renewed next time; STALE_MS spans many renewals
      }
      return;
    }
    // Deleted by hand: nobody else holds it, so it is still ours to hold.
    if (!now && createExclusive(path, content)) return;
    clearInterval(renew);
    done = true;
    const by = now?.holder ? ` by process ${now.holder.pid} on host ${now.holder.host}` : '';
    onLost(`database directory ${dir} was taken over${by} while this server held it: stopping without writing more`);
  }, RENEW_MS);
  renew.unref();
  return () => {
    if (done) return;
    done = true;
    clearInterval(renew);
    if (inspect(path)?.text === content) unlinkQuietly(path);
  };
}
