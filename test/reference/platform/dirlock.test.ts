import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { DataDirectoryInUse, LOCK_FILE, lockDataDirectory, RENEW_MS } from '../../../src/reference/storage/dirlock.ts';

let dir: string;
let lock: string;
let marker: string;
const releases: Array<() => void> = [];

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'conform-dirlock-'));
  lock = join(dir, LOCK_FILE);
  marker = `${lock}.takeover`;
});
afterEach(() => {
  releases.splice(0).forEach((release) => release());
  rmSync(dir, { recursive: true, force: true });
});

async function take(options?: Parameters<typeof lockDataDirectory>[1]) {
  const release = await lockDataDirectory(dir, options);
  releases.push(release);
  return release;
}

const record = () => JSON.parse(readFileSync(lock, 'utf8'));
const ago = (ms: number) => new Date(Date.now() - ms);
const setAge = (path: string, ms: number) => utimesSync(path, ago(ms), ago(ms));

/** The pid of a process that has ended (and was reaped). */
function endedPid(): number {
  const r = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  return Number(r.stdout);
}

/** A lock left by a process of this machine that has ended. */
function staleLocalLock() {
  writeFileSync(lock, JSON.stringify({ pid: endedPid(), host: hostname(), startedAt: '2020-01-01T00:00:00.000Z' }));
}

/** A lock written on another host (another kernel or pid namespace): only its lease tells. */
function otherHostLock(pid = 4242) {
  const holder = { pid, host: 'sandbox-7f3a', machine: 'another-boot pid:[1]', startedAt: '2020-01-01T00:00:00.000Z' };
  writeFileSync(lock, JSON.stringify(holder));
  return holder;
}

describe('data directory lock', () => {
  it('records its holder, refuses a second taker naming it, and removes the lock on release', async () => {
    const release = await take();
    const h = record();
    expect(h).toMatchObject({ pid: process.pid, host: hostname() });
    expect(typeof h.token).toBe('string');
    const refused = await lockDataDirectory(dir).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(DataDirectoryInUse);
    expect((refused as Error).message).toContain(`database directory ${dir} is in use by process ${process.pid}`);
    release();
    expect(existsSync(lock)).toBe(false);
    release(); // idempotent
    await take();
    expect(record().token).not.toBe(h.token);
  });

  it('takes over a lock whose process has ended', async () => {
    staleLocalLock();
    await take();
    expect(record().pid).toBe(process.pid);
  });

  it.skipIf(!existsSync('/proc/self/stat'))(
    'takes over a lock naming our own pid with another start time (a pid reused)',
    async () => {
      writeFileSync(
        lock,
        JSON.stringify({ pid: process.pid, host: hostname(), startTicks: 1, startedAt: '2020-01-01T00:00:00Z' }),
      );
      await take();
      expect(record().startTicks).not.toBe(1);
    },
  );

  it.each([
    ['empty', ''],
    ['unreadable', '\u0000\u00ff{"pid":'],
  ])('takes over a stale lock beside an %s takeover marker left by a crash', async (_kind, content) => {
    staleLocalLock();
    writeFileSync(marker, content);
    setAge(marker, 60_000);
    await take();
    expect(record().pid).toBe(process.pid);
    expect(existsSync(marker)).toBe(false);
  });

  it('an empty marker being written is waited for, then judged stale', async () => {
    staleLocalLock();
    writeFileSync(marker, '');
    await take();
    expect(record().pid).toBe(process.pid);
    expect(existsSync(marker)).toBe(false);
  });

  it('an old takeover marker is stale even when it names a running process', async () => {
    staleLocalLock();
    writeFileSync(marker, JSON.stringify({ pid: process.ppid, host: hostname(), startedAt: '2020-01-01T00:00:00Z' }));
    setAge(marker, 60_000);
    await take();
    expect(record().pid).toBe(process.pid);
  });

  it('a marker naming a process of this machine that has ended is stale', async () => {
    staleLocalLock();
    writeFileSync(marker, JSON.stringify({ pid: endedPid(), host: hostname(), startedAt: '2020-01-01T00:00:00Z' }));
    await take();
    expect(record().pid).toBe(process.pid);
  });

  it('an empty lock file (its writer died before writing) is taken over once it is not being written', async () => {
    writeFileSync(lock, '');
    setAge(lock, 60_000);
    await take();
    expect(record().pid).toBe(process.pid);
  });

  it('another host: a lease nobody renews is taken over, whether it ended long ago or just now', async () => {
    otherHostLock();
    setAge(lock, 3_600_000);
    const first = await take();
    expect(record().pid).toBe(process.pid);
    first();
    otherHostLock();
    setAge(lock, 8000); // its holder died 8 s ago: the lease runs out 2 s from now
    await take();
    expect(record().pid).toBe(process.pid);
  });

  it('another host: a lease its holder renews is never taken over (refused, naming pid and host)', async () => {
    const holder = otherHostLock();
    setAge(lock, 3_600_000); // even when it looked old at first sight
    const renew = setInterval(() => utimesSync(lock, new Date(), new Date()), RENEW_MS / 4);
    try {
      const refused = await lockDataDirectory(dir).catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(DataDirectoryInUse);
      expect((refused as Error).message).toContain(`in use by process ${holder.pid} on host ${holder.host}`);
      expect(record().pid).toBe(holder.pid);
    } finally {
      clearInterval(renew);
    }
  });

  it('same host name, another pid namespace: the lease decides, not a pid of ours that happens to run', async () => {
    // pid 1 runs here, but the record comes from another pid namespace (a container).
    writeFileSync(
      lock,
      JSON.stringify({ pid: 1, host: hostname(), machine: 'another-boot pid:[1]', startedAt: '2020-01-01T00:00:00Z' }),
    );
    setAge(lock, 3_600_000);
    await take();
    expect(record().pid).toBe(process.pid);
  });

  it('the holder renews its lease, takes its lock back when it was deleted by hand, and stops when it was taken', async () => {
    const onLost = vi.fn();
    await take({ onLost });
    setAge(lock, 60_000);
    await vi.waitFor(() => expect(Date.now() - statSync(lock).mtimeMs).toBeLessThan(30_000), { timeout: 10_000 });
    const { token } = record();
    rmSync(lock);
    await vi.waitFor(() => expect(existsSync(lock)).toBe(true), { timeout: 10_000 });
    expect(record().token).toBe(token);
    expect(onLost).not.toHaveBeenCalled();
    writeFileSync(lock, JSON.stringify({ pid: 4242, host: 'sandbox-7f3a', startedAt: '2020-01-01T00:00:00Z' }));
    await vi.waitFor(() => expect(onLost).toHaveBeenCalledOnce(), { timeout: 10_000 });
    expect(onLost.mock.calls[0][0]).toMatch(/was taken over by process 4242 on host sandbox-7f3a/);
    // Released after the loss, it leaves the new holder's lock alone.
    releases.splice(0).forEach((release) => release());
    expect(record().pid).toBe(4242);
  });
});
