/**
 * The name the CLI was invoked by, for messages and usage: `billing-conform` when installed in
 * another repository (a bare `conform` would resolve an unrelated registry package there),
 * `conform` in this checkout or when invoked as `conform`. The CLI records it in the
 * environment, so suite workers and child processes name it alike.
 */
import { basename } from 'node:path';
import { fileURLToPath } from 'node:url';

export const COMMAND_NAME_VARIABLE = 'CONFORM_COMMAND_NAME';
type Name = 'billing-conform' | 'conform';

/**
 * Records the name for this process and its children: the link it was started through
 * (`node_modules/.bin/billing-conform`), else the one a parent recorded, else by where the
 * package lives (inside node_modules: installed).
 */
export function recordCommandName(entry: string | undefined, here = fileURLToPath(import.meta.url)): Name {
  const link = basename(entry ?? '');
  if (link === 'billing-conform' || link === 'conform') process.env[COMMAND_NAME_VARIABLE] = link;
  else process.env[COMMAND_NAME_VARIABLE] ??= /[\\/]node_modules[\\/]/.test(here) ? 'billing-conform' : 'conform';
  return commandName();
}

export function commandName(): Name {
  return process.env[COMMAND_NAME_VARIABLE] === 'billing-conform' ? 'billing-conform' : 'conform';
}

const MENTION =
  /\bconform(?= (?:<command>|(?:init|run|serve|lint|rules|merge|faults|proxy|fixtures|judge|--help)\b)|: )/g;

/** `text` with each mention of the CLI (`conform run`, `conform fixtures check`, `conform: ...`) under the invoked name. */
export function named(text: string): string {
  const name = commandName();
  return name === 'conform' ? text : text.replace(MENTION, name);
}
