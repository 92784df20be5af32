import { CliError, didYouMean, type Command } from './command.ts';
import { toolVersion } from './version.ts';
import { named, recordCommandName } from '../engine/messages/command-name.ts';

/** Sub-commands, loaded on demand so `conform rules` does not pay for the server or vitest. */
const commands: Record<string, { summary: string; load: () => Promise<Command> }> = {
  init: {
    summary: 'Write conform.config.yaml and a fixtures module (every fixture, through your back office) here',
    load: async () => (await import('./commands/init.ts')).default,
  },
  run: {
    summary: 'Run the conformance suites against a target (default: the bundled reference server)',
    load: async () => (await import('./commands/run.ts')).default,
  },
  serve: {
    summary: 'Start the bundled reference server',
    load: async () => (await import('./commands/serve.ts')).default,
  },
  lint: {
    summary: 'Lint spec/openapi.yaml and spec/rules.yaml',
    load: async () => (await import('./commands/lint.ts')).default,
  },
  rules: {
    summary: 'Print the rule index: id, statement, source section',
    load: async () => (await import('./commands/rules.ts')).default,
  },
  merge: { summary: 'Merge shard reports into one', load: async () => (await import('./commands/merge.ts')).default },
  faults: {
    summary: 'Run the fault-injection catalog through a proxy in front of a target',
    load: async () => (await import('./commands/faults.ts')).default,
  },
  proxy: {
    summary: 'Judge live traffic: a reverse proxy that judges the target and its clients',
    load: async () => (await import('./commands/proxy.ts')).default,
  },
  fixtures: {
    summary: 'Write a fixtures file skeleton (init), or check one against the target (check)',
    load: async () => (await import('./commands/fixtures.ts')).default,
  },
  judge: {
    summary: 'Judge recorded traffic (a HAR file): the target and its clients',
    load: async () => (await import('./commands/judge.ts')).default,
  },
};

/** A sub-command by name (undefined when there is none), loaded: its `usage` lists its options. */
export async function loadCommand(name: string): Promise<Command | undefined> {
  return Object.hasOwn(commands, name) ? commands[name].load() : undefined;
}

export function help(): string {
  const width = Math.max(...Object.keys(commands).map((n) => n.length));
  const lines = Object.entries(commands).map(([name, c]) => `  ${name.padEnd(width)}  ${c.summary}`);
  return named(
    [
      'Usage: conform <command> [options]   (installed as billing-conform; conform inside its own checkout)',
      '',
      'Commands:',
      ...lines,
      '',
      'Options:',
      '  --version   print the version',
      '  --help      this help',
      '',
      'Run `conform <command> --help` for the options of a command.',
    ].join('\n'),
  );
}

export async function main(argv: string[]): Promise<number> {
  recordCommandName(process.argv[1]);
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    console.log(help());
    return name ? 0 : 2;
  }
  if (name === '--version' || name === '-V' || name === 'version') {
    console.log(toolVersion());
    return 0;
  }
  const entry = Object.hasOwn(commands, name) ? commands[name] : undefined;
  if (!entry) {
    console.error(
      named(
        `conform: unknown command '${name}'.${didYouMean(name, Object.keys(commands))} Run 'conform --help' for the list.`,
      ),
    );
    return 2;
  }
  try {
    const command = await entry.load();
    return await command.run(rest);
  } catch (err) {
    if (err instanceof CliError) {
      console.error(named(`conform ${name}: ${err.message}`));
      return err.exitCode;
    }
    if ((err as NodeJS.ErrnoException)?.code === 'ERR_MODULE_NOT_FOUND') {
      const message = String((err as Error).message);
      if (message.includes('/src/cli/commands/')) {
        console.error(named(`conform ${name}: this command is not available in this build.`));
        return 2;
      }
      // A development dependency (the spec linter's Spectral): installs of the package leave those out.
      const pkg = /Cannot find package '([^']+)'/.exec(message)?.[1];
      if (pkg) {
        console.error(
          named(
            `conform ${name}: needs ${pkg}, a development dependency the installed package leaves out; ` +
              'run it in a checkout of billing-conform after npm ci',
          ),
        );
        return 2;
      }
    }
    throw err;
  }
}
