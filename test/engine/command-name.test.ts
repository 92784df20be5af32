/**
 * Messages and usage name the command as it was invoked: `billing-conform` through the link npm
 * installs (node_modules/.bin/billing-conform), `conform` in this checkout. The first-hour
 * packaging test sees the same from an installed tarball.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { loadCommand } from '../../src/cli/main.ts';
import {
  COMMAND_NAME_VARIABLE,
  commandName,
  named,
  recordCommandName,
} from '../../src/engine/messages/command-name.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BIN = join(ROOT, 'bin', 'conform.js');
const COMMANDS = ['init', 'run', 'serve', 'lint', 'rules', 'merge', 'faults', 'proxy', 'fixtures', 'judge'];
/** `conform <command>` not preceded by `billing-`: a mention under the wrong name. */
const BARE = new RegExp(`(?<![\\w-])conform (?:<command>|${COMMANDS.join('|')})\\b`);

function cli(entry: string, args: string[]): Promise<{ code: number; out: string }> {
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1' };
  delete env[COMMAND_NAME_VARIABLE];
  return new Promise((resolve) => {
    execFile(entry, args, { env, timeout: 60_000 }, (err, stdout, stderr) =>
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : 99) : 0, out: `${stdout}${stderr}` }),
    );
  });
}

describe('the name of the command', () => {
  const before = process.env[COMMAND_NAME_VARIABLE];
  afterAll(() => {
    if (before === undefined) delete process.env[COMMAND_NAME_VARIABLE];
    else process.env[COMMAND_NAME_VARIABLE] = before;
  });

  it('is the link it was started through, else what a parent recorded, else billing-conform inside node_modules', () => {
    delete process.env[COMMAND_NAME_VARIABLE];
    expect(recordCommandName('/repo/node_modules/.bin/billing-conform', '/x/src/engine/messages/command-name.ts')).toBe(
      'billing-conform',
    );
    // A child started as `node .../bin/conform.js` keeps the parent's name...
    expect(recordCommandName('/repo/node_modules/billing-conform/bin/conform.js', '/x/command-name.ts')).toBe(
      'billing-conform',
    );
    // ...but a link named conform is conform.
    expect(recordCommandName('/repo/node_modules/.bin/conform')).toBe('conform');
    delete process.env[COMMAND_NAME_VARIABLE];
    expect(
      recordCommandName('/work/checkout/bin/conform.js', '/work/checkout/src/engine/messages/command-name.ts'),
    ).toBe('conform');
    delete process.env[COMMAND_NAME_VARIABLE];
    expect(
      recordCommandName(
        '/repo/node_modules/billing-conform/bin/conform.js',
        '/repo/node_modules/billing-conform/src/x.ts',
      ),
    ).toBe('billing-conform');
    expect(commandName()).toBe('billing-conform');
  });

  it('every command’s --help prints its usage under the invoked name', async () => {
    process.env[COMMAND_NAME_VARIABLE] = 'billing-conform';
    const printed: string[] = [];
    const log = vi.spyOn(console, 'log').mockImplementation((...a: unknown[]) => void printed.push(a.join(' ')));
    try {
      for (const name of COMMANDS) {
        printed.length = 0;
        expect(await (await loadCommand(name))!.run(['--help']), name).toBe(0);
        expect(printed.join('\n'), name).toMatch(new RegExp(`^Usage: billing-conform ${name}\\b`));
        expect(printed.join('\n'), name).not.toMatch(BARE);
      }
    } finally {
      log.mockRestore();
    }
  });

  it('named() renames each mention of a command, and nothing else', () => {
    process.env[COMMAND_NAME_VARIABLE] = 'billing-conform';
    expect(
      named("conform run: unknown option '--x'. Run 'conform run --help'. See conform.config.yaml, conformance."),
    ).toBe(
      "billing-conform run: unknown option '--x'. Run 'billing-conform run --help'. See conform.config.yaml, conformance.",
    );
    expect(named('Usage: conform <command> [options]; conform: unknown command; conform fixtures check')).toBe(
      'Usage: billing-conform <command> [options]; billing-conform: unknown command; billing-conform fixtures check',
    );
    expect(named('the conform reference server')).toBe('the conform reference server');
    process.env[COMMAND_NAME_VARIABLE] = 'conform';
    expect(named('Run conform run --help')).toBe('Run conform run --help');
  });
});

describe('invoked through a link named billing-conform (as npm installs it)', () => {
  let dir: string;
  let link: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'conform-name-'));
    link = join(dir, 'billing-conform');
    await symlink(BIN, link);
  });
  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('the help and the errors say billing-conform', async () => {
    const [help, bad, unknown] = await Promise.all([
      cli(link, ['--help']),
      cli(link, ['run', '--no-such-flag']),
      cli(link, ['runn']),
    ]);
    expect(help.out).toMatch(/^Usage: billing-conform <command> \[options\]/);
    expect(help.out).toContain('Run `billing-conform <command> --help`');
    expect(help.out).not.toMatch(BARE);
    expect(bad.code).toBe(2);
    expect(bad.out.trim()).toBe(
      "billing-conform run: unknown option '--no-such-flag'. Run 'billing-conform run --help'.",
    );
    expect(unknown.out.trim()).toBe(
      "billing-conform: unknown command 'runn'. Did you mean 'run'? Run 'billing-conform --help' for the list.",
    );
  });

  it('in this checkout (bin/conform.js) they say conform', async () => {
    const help = await cli(BIN, ['--help']);
    expect(help.out).toMatch(/^Usage: conform <command> \[options\]/);
    const bad = await cli(BIN, ['merge', '--no-such-flag']);
    expect(bad.out.trim()).toBe("conform merge: unknown option '--no-such-flag'. Run 'conform merge --help'.");
  });
});
