/** `conform judge FILE.har`: the passive judgement of recorded traffic. */
import { CliError, wantsHelp, type Command } from '../command.ts';
import { named } from '../../engine/messages/command-name.ts';
import { outputStyle } from '../../engine/runner/progress.ts';
import { redact } from '../../engine/http/redact.ts';
import { judgeHar } from '../../passive/har.ts';
import { HarError } from '../../passive/traffic/har-entry.ts';
import { finishPassive, parseArgs, parseBaseUrl, parseFailOn, parseMinJudged } from '../passive.ts';

export const usage = `Usage: conform judge FILE.har [options]

Judges recorded traffic (a HAR file from a browser, Playwright, mitmproxy, k6 or
\`conform proxy --har\`) with the checks of \`conform run\` and the passive rules: the
target's answers, and each client (by a hash of its API key) against the retry rule and
the documented request constraints. Writes report.json, junit.xml, report.html and
summary.md; rules no exchange touched are not judged. The file is read one entry at a time.

Options:
  --base-url URL          the target's base URL in the recording (default: the first
                          origin whose paths fit the interface, e.g. https://host or
                          https://host/prefix), or, for a file \`conform proxy --har\`
                          recorded, the proxy's own URL; entries outside it are left out.
                          A URL no entry is under is refused, naming the ones the file holds
  --report-dir DIR        where the reports go (default reports/<run-id>)
  --fail-on server|client|both
                          which failed rules make the exit code 1 (default both)
  --min-judged N          exit 3 when fewer than N rules were judged (default 1: traffic
                          that judged nothing never passes the gate)
  --plain                 plain output (automatic when CI=true or not a TTY)
  -h, --help              this help

Exit codes: 0 no failed rule of the --fail-on scope, 1 one failed, 2 the file could not be
judged, 3 fewer than --min-judged rules judged (no failure).`;

const command: Command = {
  name: 'judge',
  summary: 'Judge recorded traffic (a HAR file): the target and its clients',
  usage,
  async run(argv) {
    if (wantsHelp(argv)) {
      console.log(named(usage));
      return 0;
    }
    const args = parseArgs(argv, ['--base-url', '--report-dir', '--fail-on', '--min-judged'], ['--plain'], 'judge');
    if (args.positional.length !== 1)
      throw new CliError(
        args.positional.length ? `one HAR file at a time, got ${args.positional.length}` : 'name the HAR file to judge',
      );
    const file = args.positional[0];
    const failOn = parseFailOn(args.values.get('--fail-on'));
    const minJudged = parseMinJudged(args.values.get('--min-judged'));
    const given = args.values.get('--base-url');
    const baseUrl = given === undefined ? undefined : parseBaseUrl('--base-url', given);
    const style = outputStyle({ plain: args.flags.has('--plain') });
    let judged;
    try {
      judged = await judgeHar(file, { baseUrl });
    } catch (err) {
      if (err instanceof HarError) throw new CliError(`${file}: ${err.message}`);
      throw new CliError(
        `${file} could not be judged: ${redact(String((err as Error)?.message ?? err)).split('\n')[0]}`,
      );
    }
    const held = (list: { url: string; entries: number }[]) =>
      list
        .slice(0, 5)
        .map((b) => `${b.url} (${b.entries})`)
        .join(', ') + (list.length > 5 ? `, and ${list.length - 5} more` : '');
    if (!judged.baseUrl)
      throw new CliError(
        `${file}: no entry fits an operation of the interface (${judged.entries} entries` +
          `${judged.origins.length ? ` from ${held(judged.origins)}` : ''}); name the API with --base-url`,
      );
    if (judged.outcome.exchanges === 0)
      throw new CliError(
        `${file}: no entry under ${judged.baseUrl} (${judged.entries} entries); ` +
          (judged.bases.length
            ? `the API base URLs in it: ${held(judged.bases)}: pass one with --base-url`
            : `no entry fits an operation of the interface${judged.origins.length ? ` (origins: ${held(judged.origins)})` : ''}`),
      );
    const outside = judged.outside ? ` (${judged.outside} of ${judged.entries} entries outside it, left out)` : '';
    const via = judged.proxy
      ? ` (${judged.proxy.url} is the conform proxy that recorded it, in front of this target)`
      : '';
    style.write(named(`conform judge ${file}: ${judged.baseUrl}${via}${outside}`));
    const { loadRules, loadSpec } = await import('../../contract/index.ts');
    const [rules, spec] = await Promise.all([loadRules(), loadSpec()]);
    const { exitCode } = await finishPassive({
      outcome: judged.outcome,
      rules,
      baseUrl: judged.baseUrl,
      source: `the HAR file ${file}`,
      kind: 'judge',
      reportDir: args.values.get('--report-dir'),
      failOn,
      minJudged,
      specVersion: spec.version,
      style,
    });
    return exitCode;
  },
};

export default command;
