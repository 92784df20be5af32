/** A Map that keeps at most `max` entries, dropping the least recently touched first. */
export class Lru<K, V> {
  private readonly map = new Map<K, V>();

  constructor(
    private readonly max: number,
    private readonly onEvict?: (key: K, value: V) => void,
  ) {}

  get size(): number {
    return this.map.size;
  }

  get(key: K): V | undefined {
    return this.map.get(key);
  }

  /** Sets and marks as most recent. */
  set(key: K, value: V): void {
    this.map.delete(key);
    this.map.set(key, value);
    while (this.map.size > this.max) {
      const [oldest, v] = this.map.entries().next().value as [K, V];
      this.map.delete(oldest);
      this.onEvict?.(oldest, v);
    }
  }

  delete(key: K): void {
    this.map.delete(key);
  }

  /** Oldest first. */
  entries(): IterableIterator<[K, V]> {
    return this.map.entries();
  }
}
