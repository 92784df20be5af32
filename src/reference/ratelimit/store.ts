import type { Db } from '../storage/db.ts';

export interface Admission {
  allowed: boolean;
  limit: number;
  /** Requests still allowed in the current window (never negative). */
  remaining: number;
  /** Whole seconds until the window resets, at least 1. */
  resetSeconds: number;
}

/**
 * Fixed-window counters kept in the `rate_buckets` table, so every process on one
 * database shares them. One atomic upsert per request: PostgreSQL's row lock on
 * `ON CONFLICT DO UPDATE` serialises concurrent hits, which makes admission exact.
 * A window starts with the first request after the previous one ended; a hit stamped
 * before the stored window start (clock skew between processes) counts in that window.
 */
export class BucketStore {
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
    const count = Number(rows[0].count);
    const windowStart = Number(rows[0].window_start);
    const resetSeconds = Math.max(1, Math.ceil((windowStart + windowMs - at) / 1000));
    return { allowed: count <= limit, limit, remaining: Math.max(0, limit - count), resetSeconds };
  }

  /** Drops buckets whose window ended (keeps the table small; safe to run any time). */
  async sweep(): Promise<number> {
    const { rowCount } = await this.db.query('DELETE FROM rate_buckets WHERE window_start + window_ms < $1', [
      this.now(),
    ]);
    return rowCount;
  }
}
