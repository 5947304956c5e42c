/**
 * The `Headers` of the simulator's HTTP client (`http-fetch.ts`), in place of the global. Node's global `Headers`
 * is undici's, and touching it loads all of undici first: about 28 ms of CPU
 * in every simulator process, an eighth of its whole start work (bench/many-agents.mjs), which real agy, a Go
 * binary, does not pay. `headers-polyfill` would not do: its constructor reads `globalThis.Headers`.
 *
 * What it supports, the operations the MCP SDK's transport made of it when the simulator used that: build one from
 * a record, `set`, `get`, and read it back through `entries()` or iteration. Names are case-insensitive and iterated lower-cased in
 * sorted order; a repeated name's values are joined with `", "`; values are trimmed of HTTP whitespace. That
 * is the Fetch standard's behaviour for everything but `Set-Cookie`, which no MCP request carries; a test
 * holds it equal to undici's `Headers` on the operations above.
 */

/** What a `Headers` can be built from: another one (anything iterable over pairs), pairs, or a record. */
export type HeadersSource = Iterable<readonly [string, string]> | Record<string, string> | undefined | null;

/** HTTP whitespace, trimmed from both ends of a value (Fetch: "normalize"). */
const EDGE_WHITESPACE = /^[\t\n\r ]+|[\t\n\r ]+$/g;
/** A header name's characters (RFC 9110 `token`). */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

function checkedName(name: string): string {
  const text = String(name);
  if (!TOKEN.test(text)) throw new TypeError(`Headers: invalid header name "${text}"`);
  return text.toLowerCase();
}

function checkedValue(value: string): string {
  const text = String(value).replace(EDGE_WHITESPACE, '');
  if (/[\0\r\n]/.test(text)) throw new TypeError('Headers: invalid header value');
  return text;
}

/** A `Headers` without undici (see the module comment). */
export class Headers {
  readonly #values = new Map<string, string>();

  constructor(init?: HeadersSource) {
    if (init === undefined || init === null) return;
    if (typeof (init as Iterable<unknown>)[Symbol.iterator] === 'function') {
      for (const pair of init as Iterable<readonly [string, string]>) {
        if (pair.length !== 2) throw new TypeError('Headers: each pair must have a name and a value');
        this.append(pair[0], pair[1]);
      }
    } else {
      for (const [name, value] of Object.entries(init)) this.append(name, value);
    }
  }

  /** Adds a value to `name` (joined to any value it has with `", "`). */
  append(name: string, value: string): void {
    const key = checkedName(name);
    const text = checkedValue(value);
    const held = this.#values.get(key);
    this.#values.set(key, held === undefined ? text : `${held}, ${text}`);
  }

  /** Sets `name` to `value`, replacing any value it had. */
  set(name: string, value: string): void {
    this.#values.set(checkedName(name), checkedValue(value));
  }

  /** The value of `name`, or `null`. */
  get(name: string): string | null {
    return this.#values.get(checkedName(name)) ?? null;
  }

  /** Whether `name` has a value. */
  has(name: string): boolean {
    return this.#values.has(checkedName(name));
  }

  /** Removes `name`. */
  delete(name: string): void {
    this.#values.delete(checkedName(name));
  }

  /** `[name, value]` pairs, names lower-cased, in sorted order. */
  *entries(): IterableIterator<[string, string]> {
    for (const key of [...this.#values.keys()].sort()) yield [key, this.#values.get(key) as string];
  }

  /** The names, lower-cased, in sorted order. */
  *keys(): IterableIterator<string> {
    for (const [key] of this.entries()) yield key;
  }

  /** The values, in the order of their sorted names. */
  *values(): IterableIterator<string> {
    for (const [, value] of this.entries()) yield value;
  }

  /** Calls `fn(value, name, this)` for each pair, in sorted order. */
  forEach(fn: (value: string, name: string, headers: Headers) => void, thisArg?: unknown): void {
    for (const [name, value] of this.entries()) fn.call(thisArg, value, name, this);
  }

  [Symbol.iterator](): IterableIterator<[string, string]> {
    return this.entries();
  }

  get [Symbol.toStringTag](): string {
    return 'Headers';
  }
}
