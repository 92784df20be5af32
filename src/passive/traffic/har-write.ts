/** Writes traffic as a HAR 1.2 file, one entry at a time (the file is valid once closed). */
import { createWriteStream, type WriteStream } from 'node:fs';
import { entryOfRecord } from './har-entry.ts';
import type { TrafficRecord } from './record.ts';

export class HarWriter {
  private readonly out: WriteStream;
  private count = 0;
  private failure: Error | undefined;

  constructor(
    readonly path: string,
    private readonly base: URL,
    creator: { name: string; version: string },
  ) {
    this.out = createWriteStream(path);
    this.out.on('error', (err) => (this.failure ??= err));
    this.out.write(`{"log":{"version":"1.2","creator":${JSON.stringify(creator)},"pages":[],"entries":[\n`);
  }

  /** Resolves once the file is open for writing; rejects when it cannot be (a missing folder...). */
  opened(): Promise<void> {
    if (this.failure) return Promise.reject(this.failure);
    if (!this.out.pending) return Promise.resolve();
    return new Promise((resolve, reject) => {
      this.out.once('ready', () => resolve());
      this.out.once('error', reject);
    });
  }

  get entries(): number {
    return this.count;
  }

  write(r: TrafficRecord): void {
    if (this.failure) return;
    this.out.write(`${this.count ? ',\n' : ''}${JSON.stringify(entryOfRecord(r, this.base))}`);
    this.count += 1;
  }

  /**
   * Ends the JSON and the file; rejects when a write failed. `proxy`: the URL of the proxy
   * that recorded the traffic, kept (with the target) so that `conform judge --base-url`
   * takes either.
   */
  async close(meta: { proxy?: string } = {}): Promise<void> {
    const fields = { ...(meta.proxy ? { _conformProxy: meta.proxy } : {}), _conformTarget: this.base.href };
    const tail = Object.entries(fields)
      .map(([k, v]) => `,${JSON.stringify(k)}:${JSON.stringify(v)}`)
      .join('');
    await new Promise<void>((resolve) => this.out.end(`\n]${tail}}}\n`, () => resolve()));
    if (this.failure) throw this.failure;
  }
}
