/**
 * The pool's waiting work: one FIFO per key, served least-recently-served key first, so a key with a thousand
 * turns queued cannot starve a key with one. Bounded by the pool (`maxQueue`), not here.
 */

/** Stamps of keys with nothing waiting are dropped past this many (they then count as never served). */
const MAX_STAMPS = 4096;

/** Per-key FIFOs, served fairly across keys. */
export class FairQueue<T> {
  readonly #byKey = new Map<string, T[]>();
  /** Keys with waiting items, in arrival order (the tie-break). */
  #ring: string[] = [];
  /** When each key was last served (a counter): a key served a moment ago waits behind one never served. */
  readonly #served = new Map<string, number>();
  #clock = 0;
  #size = 0;

  /** Items waiting, all keys together. */
  get size(): number {
    return this.#size;
  }

  /** Appends `item` to `key`'s FIFO. */
  push(key: string, item: T): void {
    const list = this.#byKey.get(key);
    if (list) list.push(item);
    else {
      this.#byKey.set(key, [item]);
      this.#ring.push(key);
    }
    this.#size++;
  }

  /**
   * Takes the head of the least recently served key whose head `ready` accepts (arrival order breaks ties).
   * Undefined when no head is ready.
   */
  take(ready: (key: string, head: T) => boolean): { key: string; item: T } | undefined {
    let best = -1;
    let bestStamp = Number.POSITIVE_INFINITY;
    for (let i = 0; i < this.#ring.length; i++) {
      const key = this.#ring[i]!;
      const stamp = this.#served.get(key) ?? 0;
      if (stamp >= bestStamp) continue;
      if (!ready(key, this.#byKey.get(key)![0]!)) continue;
      best = i;
      bestStamp = stamp;
    }
    if (best < 0) return undefined;
    const key = this.#ring[best]!;
    const list = this.#byKey.get(key)!;
    const item = list.shift()!;
    this.#size--;
    this.#ring.splice(best, 1);
    if (list.length > 0) this.#ring.push(key);
    else this.#byKey.delete(key);
    this.#served.set(key, ++this.#clock);
    if (this.#served.size > MAX_STAMPS)
      for (const k of this.#served.keys()) if (!this.#byKey.has(k)) this.#served.delete(k);
    return { key, item };
  }

  /** Removes `item` (aborted work); true when it was waiting. */
  remove(key: string, item: T): boolean {
    const list = this.#byKey.get(key);
    const at = list?.indexOf(item) ?? -1;
    if (!list || at < 0) return false;
    list.splice(at, 1);
    this.#size--;
    if (list.length === 0) {
      this.#byKey.delete(key);
      this.#ring = this.#ring.filter((k) => k !== key);
    }
    return true;
  }

  /** The heads of every key, in ring order. */
  heads(): T[] {
    return this.#ring.map((key) => this.#byKey.get(key)![0]!);
  }

  /** Empties the queue and returns everything that was waiting. */
  drain(): T[] {
    const all = [...this.#byKey.values()].flat();
    this.#byKey.clear();
    this.#ring = [];
    this.#size = 0;
    return all;
  }
}
