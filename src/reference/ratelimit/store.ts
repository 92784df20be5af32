import type { Db } from '../storage/db.ts';

export interface Admission {
  allowed: boolean;
  limit: number;
  /** Requests still allowed in the current window (never negative). */
  remaining: number;
  /** Whole seconds until the window resets, at least 1. */
  resetSeconds: number;
}

/** Where the rate-limit hook counts: one hit per rate-limited request. */
export interface Buckets {
  hit(key: string, limit: number, windowSeconds: number): Promise<Admission>;
  /** Drops buckets whose window ended; answers how many. */
  sweep(): Promise<number>;
}

function admission(count: number, windowStart: number, windowMs: number, at: number, limit: number): Admission {
  const resetSeconds = Math.max(1, Math.ceil((windowStart + windowMs - at) / 1000));
  return { allowed: count <= limit, limit, remaining: Math.max(0, limit - count), resetSeconds };
}

/**
 * Fixed-window counters kept in the `rate_buckets` table, so every process on one
 * database shares them. One atomic upsert per request: PostgreSQL's row lock on
 * `ON CONFLICT DO UPDATE` serialises concurrent hits, which makes admission exact.
 * A window starts with the first request after the previous one ended; a hit stamped
 * before the stored window start (clock skew between processes) counts in that window.
 */
export class BucketStore implements Buckets {
  constructor(
    private readonly db: Db,
    private readonly now: () => number = Date.now,
  ) {}

  async hit(key: string, limit: number, windowSeconds: number): Promise<Admission> {
    const at = this.now();
    const windowMs = Math.round(windowSeconds * 1000);
    const { rows } = await this.db.query<{ count: number; window_start: number | string }>(
      `INSERT INTO rate_buckets AS b (key, window_start, window_ms, count) VALUES ($1, $2, $3, 1)
       ON CONFLICT (key) DO UPDATE SET
         count = CASE WHEN EXCLUDED.window_start >= b.window_start + b.window_ms THEN 1
                      ELSE LEAST(b.count + 1, 2147483647) END,
         window_start = CASE WHEN EXCLUDED.window_start >= b.window_start + b.window_ms THEN EXCLUDED.window_start
                             ELSE b.window_start END,
         window_ms = CASE WHEN EXCLUDED.window_start >= b.window_start + b.window_ms THEN EXCLUDED.window_ms
                          ELSE b.window_ms END
       RETURNING count, window_start`,
      [key, at, windowMs],
    );
    return admission(Number(rows[0].count), Number(rows[0].window_start), windowMs, at, limit);
  }

  /** Drops buckets whose window ended (keeps the table small; safe to run any time). */
  async sweep(): Promise<number> {
    const { rowCount } = await this.db.query('DELETE FROM rate_buckets WHERE window_start + window_ms < $1', [
      this.now(),
    ]);
    return rowCount;
  }
}

/**
 * The same fixed windows in this process's memory, for a database no other process can open
 * (an in-memory one): a rate-limited request costs no query.
 */
export class MemoryBucketStore implements Buckets {
  private readonly buckets = new Map<string, { start: number; ms: number; count: number }>();

  constructor(private readonly now: () => number = Date.now) {}

  async hit(key: string, limit: number, windowSeconds: number): Promise<Admission> {
    const at = this.now();
    const windowMs = Math.round(windowSeconds * 1000);
    let b = this.buckets.get(key);
    if (!b || at >= b.start + b.ms) {
      b = { start: at, ms: windowMs, count: 0 };
      this.buckets.set(key, b);
    }
    b.count = Math.min(b.count + 1, 2147483647);
    return admission(b.count, b.start, windowMs, at, limit);
  }

  async sweep(): Promise<number> {
    const at = this.now();
    let dropped = 0;
    for (const [key, b] of this.buckets)
      if (b.start + b.ms < at) {
        this.buckets.delete(key);
        dropped += 1;
      }
    return dropped;
  }
}
