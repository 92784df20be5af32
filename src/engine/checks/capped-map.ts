/**
 * A Map that keeps at most `max` entries: setting a key makes it the newest, and past `max` the
 * oldest are dropped (and handed to `onEvict`). What a judge of a long proxy session or HAR file
 * remembers per resource, bucket or client stays bounded.
 */
export class CappedMap<K, V> extends Map<K, V> {
  constructor(
    private readonly max: number,
    private readonly onEvict?: (key: K, value: V) => void,
  ) {
    super();
  }

  override set(key: K, value: V): this {
    if (this.has(key)) this.delete(key);
    super.set(key, value);
    while (this.size > this.max) {
      const [oldest, v] = this.entries().next().value as [K, V];
      this.delete(oldest);
      this.onEvict?.(oldest, v);
    }
    return this;
  }
}
