import { parseArgs } from 'node:util';
import { CliError, wantsHelp, warnKeyOnCommandLine, type Command } from '../command.ts';
import { named } from '../../engine/messages/command-name.ts';

const usage = `Usage: conform serve [options]

Start the bundled reference server (a sandbox of the Billing and Monetization Service).

Options:
  --port <n>             port to listen on (default 4010; 0 picks a free port)
  --host <addr>          address to bind (default 127.0.0.1)
  --database <url>       memory (default), file:<dir>, or postgres://... (default: DATABASE_URL)
  --api-key <key>        the sandbox merchant's API key, instead of CONFORM_API_KEY (default:
                         that variable, else sk_test_conform_reference); prefer the variable
                         (this flag warns): a command line is visible to every user of the
                         machine in the process list
  --rate-limit <op=N>    raise a published rate limit, e.g. listCustomers=1000 (repeatable; never below the published limit)
  --documented-port <n>  also serve the documented endpoints only on port n (0 picks a free port):
                         a proxy where every reference extension (x-extension: reference in
                         spec/openapi.yaml) answers 404, as a vendor's sandbox without them would
  --log                  log requests (JSON lines on stderr; stdout keeps its one line), and every API key
                         created, revoked or refused (its id, never its secret)
  -h, --help             show this help

Prints one line with the base URL and the key's merchant id (and, with --documented-port, a
second line with the documented-only URL), then serves until SIGINT or SIGTERM.`;

function parsePort(value: string | undefined, flag = '--port'): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value) || Number(value) > 65535)
    throw new CliError(`${flag} '${value}': expected an integer in 0..65535`);
  return Number(value);
}

const serve: Command = {
  name: 'serve',
  summary: 'Start the bundled reference server',
  usage,
  async run(argv) {
    if (wantsHelp(argv)) {
      console.log(named(usage));
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
          'documented-port': { type: 'string' },
          log: { type: 'boolean' },
        },
      }));
    } catch (err) {
      throw new CliError(`${(err as Error).message.split('\n')[0]} (see conform serve --help)`);
    }
    const documentedPort = parsePort(values['documented-port'] as string | undefined, '--documented-port');
    if (values['api-key'] !== undefined) warnKeyOnCommandLine('CONFORM_API_KEY');
    const { optionsFromEnv, parseRateLimitFlag, RateLimitConfigError, startReferenceServer } =
      await import('../reference.ts');
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
    let documented: { url: string; close(): Promise<void> } | undefined;
    if (documentedPort !== undefined) {
      try {
        documented = await startDocumentedOnly(
          server.baseUrl,
          documentedPort,
          (values.host as string | undefined) ?? '127.0.0.1',
        );
      } catch (err) {
        await server.close().catch(() => undefined);
        const e = err as NodeJS.ErrnoException;
        throw new CliError(
          e.code === 'EADDRINUSE'
            ? `--documented-port: port already in use: ${e.message}`
            : String(e.message ?? e).split('\n')[0],
        );
      }
    }
    // Handlers first: a signal right after the "listening" line must already stop gracefully.
    const stopped = new Promise<number>((resolve) => {
      let stopping = false;
      const stop = (signal: NodeJS.Signals) => {
        if (stopping) return;
        stopping = true;
        Promise.all([documented?.close(), server.close()]).then(
          () => resolve(0),
          (err) => {
            console.error(named(`conform serve: error while stopping on ${signal}: ${(err as Error).message}`));
            resolve(1);
          },
        );
      };
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
    });
    console.log(`conform reference server listening on ${server.baseUrl} (sandbox merchant ${server.merchantId})`);
    if (documented)
      console.log(`documented endpoints only on ${documented.url} (the reference extensions answer 404 there)`);
    return stopped;
  },
};

/** The documented-endpoints-only view of the server: the fault proxy hiding the extensions. */
async function startDocumentedOnly(
  upstream: string,
  port: number,
  host: string,
): Promise<{ url: string; close(): Promise<void> }> {
  const [{ loadSpec }, { startProxy }, { documentedOnly }] = await Promise.all([
    import('../../contract/index.ts'),
    import('../../faults/fault-proxy.ts'),
    import('../../faults/documented-only.ts'),
  ]);
  return startProxy({ upstream, port, host, fault: documentedOnly(await loadSpec()) });
}

export default serve;
