/**
 * The package as another repository gets it: `npm pack`, installed as a dev dependency into
 * an empty project, then `npx billing-conform` from there (with CI=true, as a CI job runs it)
 * against a `conform serve` started from the installed package. The install is offline: its
 * lockfile is this project's own, less the dev dependencies, so npm takes every tarball
 * from the cache `npm ci` filled, and a dependency the CLI needs but only devDependencies
 * name would be missing.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { builtinModules } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importsOf, sourceFiles } from '../architecture/walls.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const PKG = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
const NPM = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const NPX = process.platform === 'win32' ? 'npx.cmd' : 'npx';
const KEY = 'sk_test_packaging_0123456789';

interface Result {
  code: number;
  stdout: string;
  stderr: string;
}

function run(cmd: string, args: string[], cwd: string, env: Record<string, string> = {}): Promise<Result> {
  return new Promise((resolve) => {
    execFile(
      cmd,
      args,
      {
        cwd,
        env: { ...process.env, NO_COLOR: '1', npm_config_update_notifier: 'false', ...env },
        timeout: 240_000,
        maxBuffer: 16 << 20,
      },
      (err, stdout, stderr) => {
        resolve({ code: err ? (typeof err.code === 'number' ? err.code : 99) : 0, stdout, stderr });
      },
    );
  });
}

/** A lockfile for a project whose one dev dependency is the tarball: this project's lock less its own dev dependencies. */
function consumerLock(tarball: string, integrity: string): object {
  const own = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, Record<string, unknown>>;
  };
  const packages: Record<string, unknown> = {
    '': { name: 'consumer', version: '1.0.0', devDependencies: { [PKG.name]: `file:${tarball}` } },
    [`node_modules/${PKG.name}`]: {
      version: PKG.version,
      resolved: `file:${tarball}`,
      integrity,
      dev: true,
      license: PKG.license,
      dependencies: PKG.dependencies,
      bin: PKG.bin,
      engines: PKG.engines,
    },
  };
  for (const [path, entry] of Object.entries(own.packages)) {
    // devOptional: needed by a dev dependency and by an optional one of the runtime (tslib, for @emnapi's).
    if (!path || entry.dev) continue;
    if (entry.devOptional) {
      packages[path] = { ...entry };
      continue;
    }
    const { optional, ...rest } = entry;
    packages[path] = optional ? { ...rest, devOptional: true } : { ...rest, dev: true };
  }
  return { name: 'consumer', version: '1.0.0', lockfileVersion: 3, requires: true, packages };
}

describe('everything the CLI needs at run time is in dependencies', () => {
  it('every package imported by bin/, src/, suites/ and spec/ is a dependency or a Node builtin', () => {
    // `conform lint` checks this project's own spec: its linter (Spectral, whose install runs a
    // telemetry script) is a development dependency, and the command says so when it is missing.
    const devOnly = (file: string) => file.startsWith('src/contract/lint/');
    const files = sourceFiles(ROOT).filter((f) => /^(bin|src|suites|spec)\//.test(f) && !devOnly(f));
    const missing = new Set<string>();
    for (const file of files) {
      for (const { specifier } of importsOf(file, readFileSync(join(ROOT, file), 'utf8'))) {
        if (!specifier || specifier.startsWith('.') || specifier.startsWith('node:')) continue;
        const name = specifier.startsWith('@') ? specifier.split('/').slice(0, 2).join('/') : specifier.split('/')[0];
        if (!builtinModules.includes(name) && !PKG.dependencies[name]) missing.add(`${file}: ${specifier}`);
      }
    }
    expect(files.length).toBeGreaterThan(100);
    expect([...missing]).toEqual([]);
  });
});

describe('installed from an npm pack tarball into another project', () => {
  let work: string;
  let packed: { filename: string; integrity: string; files: { path: string }[] };
  let installed: Result;
  let server: ChildProcess | undefined;

  beforeAll(async () => {
    work = await mkdtemp(join(tmpdir(), 'conform-packaging-'));
    const pack = await run(NPM, ['pack', '--json', '--pack-destination', work], ROOT);
    expect(pack.code, pack.stderr).toBe(0);
    // Lifecycle scripts (prepare) may print before npm's JSON, which starts on a line of its own.
    packed = JSON.parse(pack.stdout.slice(pack.stdout.search(/^\[/m)))[0];
    await writeFile(
      join(work, 'package.json'),
      JSON.stringify(
        {
          name: 'consumer',
          version: '1.0.0',
          private: true,
          type: 'module',
          devDependencies: { [PKG.name]: `file:${packed.filename}` },
        },
        null,
        2,
      ),
    );
    await writeFile(
      join(work, 'package-lock.json'),
      JSON.stringify(consumerLock(packed.filename, packed.integrity), null, 2),
    );
    installed = await run(NPM, ['ci', '--offline', '--ignore-scripts', '--no-audit', '--no-fund'], work);
  }, 240_000);

  afterAll(async () => {
    server?.kill('SIGTERM');
    if (work) await rm(work, { recursive: true, force: true });
  });

  it('the tarball holds the CLI, suites, spec, schemas and type declarations, and none of the project’s own tests or tools', () => {
    const paths = packed.files.map((f) => f.path);
    for (const p of [
      'bin/conform.js',
      'src/cli/main.ts',
      'suites/auth.suite.ts',
      'spec/openapi.yaml',
      'spec/rules.yaml',
      'schemas/config.schema.json',
      'schemas/fixtures.schema.json',
      'types/engine/fixtures/public.d.ts',
    ])
      expect(paths).toContain(p);
    expect(paths.filter((p) => /^(test|mutation|bench|scripts|reports)\//.test(p))).toEqual([]);
  });

  it('installs offline with the dependencies alone, and links the billing-conform bin', async () => {
    expect(installed.code, installed.stderr).toBe(0);
    const manifest = JSON.parse(await readFile(join(work, 'node_modules', PKG.name, 'package.json'), 'utf8'));
    expect(manifest.private).toBeUndefined();
    expect(manifest.bin['billing-conform']).toBe('bin/conform.js');
    // The dev dependencies no runtime dependency also pulls in (e.g. typescript, StrykerJS) are absent.
    const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8'));
    const devOnly = Object.keys(PKG.devDependencies).filter((d) => lock.packages[`node_modules/${d}`]?.dev);
    expect(devOnly).toContain('typescript');
    for (const dev of devOnly) expect(readable(join(work, 'node_modules', dev, 'package.json')), dev).toBe(false);
  });

  it('npx billing-conform --version and run --help work from that project with CI=true', async () => {
    const version = await run(NPX, ['billing-conform', '--version'], work, { CI: 'true' });
    expect(version.stdout.trim(), version.stderr).toBe(PKG.version);
    const help = await run(NPX, ['billing-conform', 'run', '--help'], work, { CI: 'true' });
    expect(help.code, help.stderr).toBe(0);
    expect(help.stdout).toMatch(/^Usage: billing-conform run \[options\]/);
    expect(help.stdout).toMatch(/--sandbox/);
  });

  it('a short run (the auth suite) against a conform serve started from the installed package passes', async () => {
    server = spawn(
      process.execPath,
      [join(work, 'node_modules', PKG.name, 'bin', 'conform.js'), 'serve', '--port', '0', '--api-key', KEY],
      { cwd: work, stdio: ['ignore', 'pipe', 'inherit'] },
    );
    const line = await new Promise<string>((resolve, reject) => {
      createInterface({ input: server!.stdout! }).once('line', resolve);
      server!.once('exit', (code) => reject(new Error(`conform serve exited (${code}) before listening`)));
    });
    const baseUrl = /listening on (http:\/\/\S+)/.exec(line)?.[1];
    expect(baseUrl, line).toBeDefined();
    const r = await run(
      NPX,
      [
        'billing-conform',
        'run',
        '--base-url',
        baseUrl!,
        '--suite',
        'auth',
        '--plain',
        '--report-dir',
        'reports/auth',
        '--seed',
        '1',
      ],
      work,
      { CI: 'true', CONFORM_API_KEY: KEY },
    );
    expect(r.code, `${r.stdout}\n${r.stderr}`).toBe(0);
    const report = JSON.parse(await readFile(join(work, 'reports', 'auth', 'report.json'), 'utf8'));
    expect(report.summary.rules.failed).toBe(0);
    expect(report.summary.rules.passed).toBeGreaterThan(3);
    expect(
      report.rules.filter((x: { id: string; verdict: string }) => x.id.startsWith('AUTH.') && x.verdict === 'passed')
        .length,
    ).toBeGreaterThan(3);
    expect(`${r.stdout}${r.stderr}`).not.toContain(KEY);
  });

  it('billing-conform/fixtures gives a fixtures module its types, and FixtureUnavailable at run time', async () => {
    await writeFile(
      join(work, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          module: 'nodenext',
          moduleResolution: 'nodenext',
          target: 'es2022',
          strict: true,
          noEmit: true,
          skipLibCheck: false,
          types: [],
        },
        include: ['*.ts'],
      }),
    );
    await writeFile(
      join(work, 'good.fixtures.ts'),
      `import { FixtureUnavailable, type FixtureFactory } from 'billing-conform/fixtures';
const create: FixtureFactory = (ctx) => ({
  async customer() {
    const ex = await ctx.http.get('/v0/customers/cus_1');
    if (ex.status !== 200) throw new FixtureUnavailable('customer', 'no seeded customer');
    return { customerId: 'cus_1' };
  },
});
export default create;
`,
    );
    await writeFile(
      join(work, 'bad.fixtures.ts'),
      `import type { FixtureFactory } from 'billing-conform/fixtures';\nexport default (() => ({ async customer() { return { customerId: 1 }; } })) satisfies FixtureFactory;\n`,
    );
    const tsc = await run(process.execPath, [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', '.'], work);
    const errorFiles = [...tsc.stdout.matchAll(/^(\S+?)\(\d+,\d+\): error/gm)].map((m) => m[1]);
    expect(errorFiles, tsc.stdout).toEqual(['bad.fixtures.ts']);
    expect(tsc.stdout).toMatch(/customerId/);
    const loaded = await run(
      process.execPath,
      [
        '--import',
        'tsx',
        '-e',
        "const m = await import('./good.fixtures.ts'); const { FixtureUnavailable } = await import('billing-conform/fixtures'); console.log(typeof m.default, new FixtureUnavailable('x', 'y').name)",
      ],
      work,
    );
    expect(loaded.stdout.trim(), loaded.stderr).toBe('function FixtureUnavailable');
  });
});

function readable(path: string): boolean {
  try {
    readFileSync(path);
    return true;
  } catch {
    return false;
  }
}
