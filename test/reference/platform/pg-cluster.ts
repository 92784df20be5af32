/**
 * A throwaway PostgreSQL cluster in a temporary directory, as .ci/postgres.sh starts one, for
 * tests and benchmarks that stop or restart their database (never the shared one). PostgreSQL
 * refuses to run as root: as root the binaries run as the `postgres` user.
 */
import { execFile, execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';

const execFileAsync = promisify(execFile);

/** The directory holding initdb and pg_ctl, or undefined when PostgreSQL is not installed. */
export function postgresBinDir(): string | undefined {
  const usable = (dir: string) => existsSync(join(dir, 'initdb')) && existsSync(join(dir, 'pg_ctl'));
  try {
    const dir = execFileSync('pg_config', ['--bindir'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
    if (usable(dir.trim())) return dir.trim();
  } catch {
    // no pg_config: look where Debian puts the binaries, then on PATH
  }
  const debian = existsSync('/usr/lib/postgresql')
    ? readdirSync('/usr/lib/postgresql')
        .sort((a, b) => Number(b) - Number(a))
        .map((v) => `/usr/lib/postgresql/${v}/bin`)
    : [];
  const onPath = (process.env.PATH ?? '').split(':').filter(Boolean);
  return [...debian, ...onPath].find(usable);
}

/** Why a test needing its own cluster is skipped ('' when it can run). */
export function clusterSkipReason(): string {
  if (!postgresBinDir()) return 'PostgreSQL binaries (initdb, pg_ctl) not found';
  if (process.getuid?.() === 0 && spawnSync('id', ['postgres']).status !== 0)
    return 'running as root and there is no postgres user to run PostgreSQL as';
  return '';
}

export interface Cluster {
  /** postgres://postgres@127.0.0.1:<port>/conform */
  url: string;
  /** pg_ctl stop: `immediate` is a crash (no checkpoint; recovery on start), `fast` a clean stop. */
  stop(mode?: 'immediate' | 'fast'): Promise<void>;
  /** pg_ctl start, resolving once the server accepts connections. */
  start(): Promise<void>;
  /** Stops the cluster and removes its directory. */
  dispose(): Promise<void>;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** initdb and start a cluster in a new temporary directory, with a database `conform`. */
export async function startCluster(): Promise<Cluster> {
  const bin = postgresBinDir();
  if (!bin) throw new Error('PostgreSQL binaries (initdb, pg_ctl) not found');
  const asRoot = process.getuid?.() === 0;
  const run = async (tool: string, args: string[]) => {
    const [cmd, argv] = asRoot
      ? ['runuser', ['-u', 'postgres', '--', join(bin, tool), ...args]]
      : [join(bin, tool), args];
    try {
      await execFileAsync(cmd, argv, { encoding: 'utf8', timeout: 120_000 });
    } catch (err) {
      const e = err as { stderr?: string; stdout?: string; message?: string };
      throw new Error(`${tool} ${args.join(' ')} failed: ${(e.stderr || e.stdout || e.message || '').slice(-600)}`);
    }
  };
  const dir = mkdtempSync(join(tmpdir(), 'conform-pg-'));
  chmodSync(dir, 0o755);
  if (asRoot) chownSync(dir, Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' })), 0);
  const data = join(dir, 'data');
  const port = await freePort();
  const options = `-h 127.0.0.1 -p ${port} -k ${dir} -c max_connections=100 -c fsync=on`;
  const start = () =>
    run('pg_ctl', ['-D', data, '-l', join(dir, 'server.log'), '-w', '-t', '60', '-o', options, 'start']);
  const stop = (mode: 'immediate' | 'fast' = 'fast') => run('pg_ctl', ['-D', data, '-m', mode, '-w', 'stop']);
  const dispose = async () => {
    await stop('immediate').catch(() => {}); // already stopped, or never started
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await run('initdb', ['-D', data, '-U', 'postgres', '-A', 'trust', '-E', 'UTF8', '--no-sync']);
    await start();
    const admin = new pg.Client({ connectionString: `postgres://postgres@127.0.0.1:${port}/postgres` });
    await admin.connect();
    await admin.query('CREATE DATABASE conform').finally(() => admin.end());
  } catch (err) {
    await dispose();
    throw err;
  }
  return { url: `postgres://postgres@127.0.0.1:${port}/conform`, stop, start, dispose };
}
