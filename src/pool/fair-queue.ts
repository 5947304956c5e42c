/**
 * The pool's waiting work: one FIFO per key, served round-robin across keys, so a key with a thousand turns
 * queued cannot starve a key with one. Bounded by the pool (`maxQueue`), not here.
 */

/** Per-key FIFOs in round-robin order. */
export class FairQueue<T> {
  readonly #byKey = new Map<string, T[]>();
  /** Keys with waiting items, in the order they are served: a served key goes to the back. */
  #ring: string[] = [];
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
   * Takes the head of the first key (in ring order) whose head `ready` accepts, and moves that key to the back
   * of the ring. Undefined when no head is ready.
   */
  take(ready: (key: string, head: T) => boolean): { key: string; item: T } | undefined {
    for (let i = 0; i < this.#ring.length; i++) {
      const key = this.#ring[i]!;
      const list = this.#byKey.get(key)!;
      const head = list[0]!;
      if (!ready(key, head)) continue;
      list.shift();
      this.#size--;
      this.#ring.splice(i, 1);
      if (list.length > 0) this.#ring.push(key);
      else this.#byKey.delete(key);
      return { key, item: head };
    }
    return undefined;
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
