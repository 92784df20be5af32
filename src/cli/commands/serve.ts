import { parseArgs } from 'node:util';
import { CliError, wantsHelp, type Command } from '../command.ts';

const usage = `Usage: conform serve [options]

Start the bundled reference server (a sandbox of the Billing and Monetization Service).

Options:
  --port <n>             port to listen on (default 4010; 0 picks a free port)
  --host <addr>          address to bind (default 127.0.0.1)
  --database <url>       memory (default), file:<dir>, or postgres://... (default: DATABASE_URL)
  --api-key <key>        the sandbox merchant's API key (default: CONFORM_API_KEY, else sk_test_conform_reference)
  --rate-limit <op=N>    raise a published rate limit, e.g. listCustomers=1000 (repeatable; never below the published limit)
  --log                  log requests (JSON lines on stderr; stdout keeps its one line)
  -h, --help             show this help

Prints one line with the base URL and the key's merchant id, then serves until SIGINT or SIGTERM.`;

function parsePort(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value) || Number(value) > 65535) throw new CliError(`--port '${value}': expected an integer in 0..65535`);
  return Number(value);
}

const serve: Command = {
  name: 'serve',
  summary: 'Start the bundled reference server',
  usage,
  async run(argv) {
    if (wantsHelp(argv)) {
      console.log(usage);
      return 0;
    }
    let values: Record<string, string | string[] | boolean | undefined>;
    try {
      ({ values } = parseArgs({
        args: argv,
        strict: true,
        allowPositionals: false,
        options: {
          port: { type: 'string' },
          host: { type: 'string' },
          database: { type: 'string' },
          'api-key': { type: 'string' },
          'rate-limit': { type: 'string', multiple: true },
          log: { type: 'boolean' },
        },
      }));
    } catch (err) {
      throw new CliError(`${(err as Error).message.split('\n')[0]} (see conform serve --help)`);
    }
    const { optionsFromEnv, startReferenceServer } = await import('../../reference/index.ts');
    const { parseRateLimitFlag, RateLimitConfigError } = await import('../../reference/ratelimit/limits.ts');
    const env = optionsFromEnv();
    const rateLimits: Record<string, number> = {};
    try {
      for (const flag of (values['rate-limit'] as string[] | undefined) ?? []) {
        const [op, n] = parseRateLimitFlag(flag);
        rateLimits[op] = n;
      }
    } catch (err) {
      if (err instanceof RateLimitConfigError) throw new CliError(err.message);
      throw err;
    }
    let server: Awaited<ReturnType<typeof startReferenceServer>>;
    try {
      server = await startReferenceServer({
        port: parsePort(values.port as string | undefined) ?? 4010,
        host: (values.host as string | undefined) ?? '127.0.0.1',
        database: (values.database as string | undefined) ?? env.database,
        apiKey: (values['api-key'] as string | undefined) ?? env.apiKey,
        rateLimits,
        logger: values.log ? { level: 'info', stream: process.stderr } : false,
      });
    } catch (err) {
      if (err instanceof CliError) throw err;
      const e = err as NodeJS.ErrnoException;
      if (e.code === 'EADDRINUSE') throw new CliError(`port already in use: ${e.message}`);
      throw new CliError(String(e.message ?? e).split('\n')[0]);
    }
    // Handlers first: a signal right after the "listening" line must already stop gracefully.
    const stopped = new Promise<number>((resolve) => {
      let stopping = false;
      const stop = (signal: NodeJS.Signals) => {
        if (stopping) return;
        stopping = true;
        server.close().then(
          () => resolve(0),
          (err) => {
            console.error(`conform serve: error while stopping on ${signal}: ${(err as Error).message}`);
            resolve(1);
          },
        );
      };
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
    });
    console.log(`conform reference server listening on ${server.baseUrl} (sandbox merchant ${server.merchantId})`);
    return stopped;
  },
};

export default serve;
