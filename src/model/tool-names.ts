/**
 * Tool-name normalization. Model providers accept only `[A-Za-z0-9_-]` names of at most 64 characters
 * (Gemini also wants a letter or `_` first), while MCP servers and tool authors use dots, slashes, unicode
 * and long names. Normalized names are provider-safe, collision-proof and reversible: a
 * {@link ToolNameRegistry} maps each one back to the server and the original name it came from.
 *
 * Rules, in order:
 * 1. Unicode is decomposed (NFKD) and combining marks dropped, so `café` becomes `cafe`.
 * 2. Every run of characters outside `[A-Za-z0-9_-]` becomes one `_`.
 * 3. With qualification on, the server part and the tool part are joined by `__`.
 * 4. A name that does not start with a letter or `_` gets a leading `_`.
 * 5. A name with no letter or digit left (e.g. all CJK) becomes `tool` plus a hash suffix.
 * 6. A name longer than the limit is cut and gets a hash suffix.
 * 7. A name already taken by another tool gets a hash suffix (see {@link ToolNameRegistry}).
 *
 * The suffix is `_` and 8 hex digits of SHA-256 over the server and the original name: stable across runs
 * and machines, so the name the model learned yesterday is the name it gets today.
 */
import { createRequire } from 'node:module';

/**
 * `node:crypto`'s `createHash`, required on the first hash: the package's import would otherwise load Node's
 * crypto modules (about 3 ms of a fresh process) for a name that is hashed only when a tool is served.
 */
let createHash: typeof import('node:crypto').createHash | undefined;

/** The longest name providers accept. */
export const MAX_TOOL_NAME_LENGTH = 64;

/** Joins server and tool in a qualified name. */
export const QUALIFIED_NAME_SEPARATOR = '__';

const HASH_LENGTH = 8;
// Room for a hash suffix plus a few recognizable characters.
const MIN_MAX_LENGTH = 16;
const SAFE_NAME = /^[A-Za-z_][A-Za-z0-9_-]*$/;

/** Options of {@link normalizeToolName} and {@link ToolNameRegistry}. */
export interface ToolNameOptions {
  /** Prefix each name with its server (`server__tool`). Default `false`: names are unique per registry only. */
  qualify?: boolean;
  /** The length limit; default {@link MAX_TOOL_NAME_LENGTH}. Must leave room for a hash suffix (≥ 16). */
  maxLength?: number;
}

/** A normalized name with its provenance. */
export interface NormalizedToolName {
  /** The provider-safe name. */
  name: string;
  /** The MCP server the tool belongs to. */
  server: string;
  /** The tool's name as its author wrote it. */
  originalName: string;
  /** Whether `name` differs from `originalName`. */
  changed: boolean;
  /** Whether the name was cut to fit the length limit. */
  shortened: boolean;
  /** Whether a hash suffix was appended (cut, nothing usable left, or a collision). */
  hashed: boolean;
}

/** Whether `name` is already provider-safe: `[A-Za-z_][A-Za-z0-9_-]*`, at most `maxLength` characters. */
export function isProviderSafeToolName(name: string, maxLength: number = MAX_TOOL_NAME_LENGTH): boolean {
  return name.length <= maxLength && SAFE_NAME.test(name);
}

/** Steps 1–2: the charset part of normalization, without the leading-character fix or any suffix. */
export function sanitizeToolNamePart(part: string): string {
  return part
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .replace(/[^A-Za-z0-9_-]+/g, '_');
}

/** The 8-hex-digit suffix for a tool; `salt` picks another one if that is taken too. */
export function toolNameHash(server: string, originalName: string, salt = 0): string {
  const input = salt === 0 ? `${server}\u0000${originalName}` : `${server}\u0000${originalName}\u0000${salt}`;
  createHash ??= (createRequire(import.meta.url)('node:crypto') as typeof import('node:crypto')).createHash;
  return createHash('sha256').update(input, 'utf8').digest('hex').slice(0, HASH_LENGTH);
}

/**
 * Normalizes one name on its own (rules 1–6). It cannot see other names, so it does not resolve
 * collisions: register names in a {@link ToolNameRegistry} for that.
 */
export function normalizeToolName(
  server: string,
  originalName: string,
  options: ToolNameOptions = {},
): NormalizedToolName {
  const maxLength = checkedMaxLength(options.maxLength);
  let base = sanitizeToolNamePart(originalName);
  if (options.qualify) base = `${sanitizeToolNamePart(server)}${QUALIFIED_NAME_SEPARATOR}${base}`;
  let opaque = !/[A-Za-z0-9]/.test(base);
  if (opaque) base = 'tool';
  else if (!/^[A-Za-z_]/.test(base)) base = `_${base}`;
  const shortened = base.length > maxLength;
  // An all-symbol name like `日本語` keeps nothing recognizable, so only the hash can tell two apart.
  opaque ||= shortened;
  const name = opaque ? withHashSuffix(base, toolNameHash(server, originalName), maxLength) : base;
  return { name, server, originalName, changed: name !== originalName, shortened, hashed: opaque };
}

/** `base` cut so that `_<hash>` fits in `maxLength`, then the suffix. */
export function withHashSuffix(base: string, hash: string, maxLength: number = MAX_TOOL_NAME_LENGTH): string {
  return `${base.slice(0, maxLength - hash.length - 1)}_${hash}`;
}

/** A tool to register: its server and original name. */
export interface ToolNameSource {
  /** The MCP server the tool belongs to. */
  server: string;
  /** The tool's name as its author wrote it. */
  name: string;
}

/**
 * Normalized names for a set of tools, unique within the registry and mapped back to their provenance.
 *
 * Collisions: a name another tool already holds gets a hash suffix. {@link ToolNameRegistry.registerAll}
 * decides a batch independently of input order: an original that is already safe keeps its name, and every
 * other member of a colliding group is suffixed (no arbitrary winner). {@link ToolNameRegistry.register}
 * never renames a registered tool, so a later colliding tool is the one suffixed.
 */
export class ToolNameRegistry {
  readonly #options: Required<ToolNameOptions>;
  readonly #byName = new Map<string, NormalizedToolName>();
  readonly #bySource = new Map<string, NormalizedToolName>();

  constructor(options: ToolNameOptions = {}) {
    this.#options = { qualify: options.qualify ?? false, maxLength: checkedMaxLength(options.maxLength) };
  }

  /** Number of registered tools. */
  get size(): number {
    return this.#byName.size;
  }

  /** Registers one tool (idempotent for the same server and name) and returns its entry. */
  register(server: string, originalName: string): NormalizedToolName {
    return this.#register(server, originalName, false);
  }

  /** Registers a batch; the resulting names do not depend on the order of `sources`. Entries follow input order. */
  registerAll(sources: Iterable<ToolNameSource>): NormalizedToolName[] {
    const list = [...sources];
    const fresh = new Map<string, NormalizedToolName>();
    for (const { server, name } of list) {
      const key = sourceKey(server, name);
      if (!this.#bySource.has(key)) fresh.set(key, normalizeToolName(server, name, this.#options));
    }
    const groups = new Map<string, NormalizedToolName[]>();
    for (const entry of fresh.values()) {
      const group = groups.get(entry.name);
      if (group) group.push(entry);
      else groups.set(entry.name, [entry]);
    }
    for (const group of [...groups.values()].sort((a, b) => compare(a[0]!.name, b[0]!.name))) {
      const exact = group.filter((entry) => entry.originalName === entry.name);
      // Only a unique, already-safe original may keep a contested name.
      const keeper = exact.length === 1 && !this.#byName.has(exact[0]!.name) ? exact[0] : undefined;
      const contested = group.length > 1 || this.#byName.has(group[0]!.name);
      for (const entry of group.sort(compareSources)) {
        this.#register(entry.server, entry.originalName, contested && entry !== keeper);
      }
    }
    return list.map(({ server, name }) => this.#bySource.get(sourceKey(server, name))!);
  }

  /** The entry for a normalized name, i.e. where the name came from. */
  resolve(name: string): NormalizedToolName | undefined {
    return this.#byName.get(name);
  }

  /** The entry for a tool by its server and original name. */
  lookup(server: string, originalName: string): NormalizedToolName | undefined {
    return this.#bySource.get(sourceKey(server, originalName));
  }

  /** All entries, in registration order. */
  entries(): NormalizedToolName[] {
    return [...this.#bySource.values()];
  }

  #register(server: string, originalName: string, forceSuffix: boolean): NormalizedToolName {
    const key = sourceKey(server, originalName);
    const existing = this.#bySource.get(key);
    if (existing) return existing;
    const normalized = normalizeToolName(server, originalName, this.#options);
    let entry = normalized;
    if (forceSuffix || this.#byName.has(normalized.name)) {
      // Suffix the unsuffixed base: `a_b` becomes `a_b_<hash>`, never `a_b_<hash>_<hash>`.
      const base = normalized.hashed ? normalized.name.slice(0, -(HASH_LENGTH + 1)) : normalized.name;
      let name = withHashSuffix(base, toolNameHash(server, originalName), this.#options.maxLength);
      // Another tool may hold even that name (a 32-bit clash, or a tool literally named so): try salted hashes.
      for (let salt = 1; this.#byName.has(name); salt++) {
        name = withHashSuffix(base, toolNameHash(server, originalName, salt), this.#options.maxLength);
      }
      entry = { ...normalized, name, changed: name !== originalName, hashed: true };
    }
    this.#byName.set(entry.name, entry);
    this.#bySource.set(key, entry);
    return entry;
  }
}

function sourceKey(server: string, name: string): string {
  return `${server}\u0000${name}`;
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function compareSources(a: NormalizedToolName, b: NormalizedToolName): number {
  return compare(a.server, b.server) || compare(a.originalName, b.originalName);
}

function checkedMaxLength(maxLength: number = MAX_TOOL_NAME_LENGTH): number {
  if (!Number.isInteger(maxLength) || maxLength < MIN_MAX_LENGTH) {
    throw new RangeError(`maxLength must be an integer of at least ${MIN_MAX_LENGTH}`);
  }
  return maxLength;
}

/**
 * The names a set of tools of one server is served under, keyed by the author's name: the same
 * {@link ToolNameRegistry.registerAll} the MCP server uses, so this is exactly what agy sees (and what a
 * simulator scenario must call). Order-independent; a name clash gives the non-exact tools a hash suffix.
 */
export function servedToolNames(
  server: string,
  names: readonly string[],
  options: ToolNameOptions = {},
): ReadonlyMap<string, string> {
  const registry = new ToolNameRegistry(options);
  const entries = registry.registerAll(names.map((name) => ({ server, name })));
  return new Map(entries.map((entry) => [entry.originalName, entry.name]));
}
