/**
 * A live passive judgement: the traffic proxy in front of a target, every exchange judged as
 * it ends (and written to a HAR file when asked), until stopped.
 */
import { loadSpec, loadRules } from '../contract/index.ts';
import { HarWriter } from './traffic/har-write.ts';
import { startTrafficProxy, type ExchangeTiming } from './traffic/recording-proxy.ts';
import { PassiveJudge, type PassiveOutcome } from './judge.ts';

export interface PassiveProxyOptions {
  target: string;
  host?: string;
  port?: number;
  /** Also record the traffic (scrubbed) as a HAR file. */
  harPath?: string;
  toolVersion?: string;
  onTiming?(timing: ExchangeTiming): void;
}

export interface PassiveProxy {
  url: string;
  readonly exchanges: number;
  /** Stops taking traffic, lets exchanges in flight end, and returns the judgement. */
  stop(): Promise<PassiveOutcome>;
}

export async function startPassiveProxy(opts: PassiveProxyOptions): Promise<PassiveProxy> {
  const [spec, rules] = await Promise.all([loadSpec(), loadRules()]);
  const judge = new PassiveJudge(spec, rules, opts.target);
  const har = opts.harPath
    ? new HarWriter(opts.harPath, new URL(opts.target), {
        name: 'billing-conform',
        version: opts.toolVersion ?? '0.0.0',
      })
    : undefined;
  // A file that cannot be opened stops the start, before any traffic is taken.
  await har?.opened();
  const proxy = await startTrafficProxy({
    target: opts.target,
    host: opts.host,
    port: opts.port,
    onTiming: opts.onTiming,
    onRecord(record) {
      har?.write(record);
      judge.observe(record);
    },
  }).catch(async (err) => {
    await har?.close().catch(() => undefined);
    throw err;
  });
  let stopped: Promise<PassiveOutcome> | undefined;
  return {
    url: proxy.url,
    get exchanges() {
      return proxy.stats.exchanges;
    },
    stop() {
      stopped ??= (async () => {
        await proxy.close();
        const outcome = judge.finish();
        // A HAR file that could not be written loses the recording, never the judgement.
        await har?.close({ proxy: proxy.url }).catch((err: unknown) => {
          outcome.errors.push({ message: `the HAR file ${opts.harPath} could not be written: ${String(err)}` });
        });
        return outcome;
      })();
      return stopped;
    },
  };
}
