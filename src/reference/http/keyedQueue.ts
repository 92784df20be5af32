/**
 * Runs at most `width` tasks per key at once; the others wait in arrival order, holding
 * nothing (no database connection) while they wait. The write requests of one merchant wait
 * here for their turn, so a merchant busy writing holds at most `width` of the pool's
 * connections and leaves the rest to the other merchants (see server.ts).
 */
export class KeyedQueue {
  private readonly lanes = new Map<string, { running: number; waiting: Array<() => void> }>();

  /**
   * `startAfterPendingIo`: each task starts only once the I/O already pending is handled
   * (setImmediate), for tasks that run start to end without yielding to the event loop.
   */
  constructor(
    private readonly width: number,
    private readonly options: { startAfterPendingIo?: boolean } = {},
  ) {
    if (!Number.isInteger(width) || width < 1) throw new Error(`KeyedQueue: width ${width} is not a positive integer`);
  }

  async run<T>(key: string, task: () => Promise<T>): Promise<T> {
    const lane = this.lanes.get(key) ?? { running: 0, waiting: [] };
    this.lanes.set(key, lane);
    if (lane.running < this.width) lane.running += 1;
    else await new Promise<void>((resolve) => lane.waiting.push(resolve));
    if (this.options.startAfterPendingIo) await new Promise<void>((resolve) => setImmediate(resolve));
    try {
      return await task();
    } finally {
      // The slot passes straight to the next waiter, so a newcomer never overtakes the queue.
      const next = lane.waiting.shift();
      if (next) next();
      else if (--lane.running === 0) this.lanes.delete(key);
    }
  }

  /** Tasks running and waiting under `key`. */
  size(key: string): { running: number; waiting: number } {
    const lane = this.lanes.get(key);
    return { running: lane?.running ?? 0, waiting: lane?.waiting.length ?? 0 };
  }
}
