/** One CLI sub-command. `run` returns the process exit code. */
export interface Command {
  name: string;
  summary: string;
  usage: string;
  run(argv: string[]): Promise<number>;
}

/** A usage or environment problem: the CLI prints its message on one line and exits 2. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode = 2,
  ) {
    super(message);
    this.name = 'CliError';
  }
}

let keyWarned = false;

/**
 * `--api-key` was given: says once per process, on stderr, that the process list shows a
 * command line to every user of the machine, and where the key goes instead.
 */
export function warnKeyOnCommandLine(instead = 'CONFORM_API_KEY (or the variable apiKeyEnv names)'): void {
  if (keyWarned) return;
  keyWarned = true;
  process.stderr.write(
    `warning: --api-key shows the key to every user of this machine in the process list; set ${instead} instead\n`,
  );
}

/** True when argv asks for help. */
export function wantsHelp(argv: string[]): boolean {
  return argv.includes('--help') || argv.includes('-h');
}

/** `--profile`: quick or full (undefined when not given). */
export function parseProfile(value: string | undefined): 'quick' | 'full' | undefined {
  if (value !== undefined && value !== 'quick' && value !== 'full')
    throw new CliError(`--profile must be quick or full, got '${value}'`);
  return value;
}

/** `--seed`: an integer in 0..2147483647 (fast-check's seed range), undefined when not given. */
export function parseSeed(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d{1,10}$/.test(value) || Number(value) > 2147483647)
    throw new CliError(`--seed must be an integer in 0..2147483647, got '${value}'`);
  return Number(value);
}

export { didYouMean } from '../engine/messages/did-you-mean.ts';
