import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  isProviderSafeToolName,
  MAX_TOOL_NAME_LENGTH,
  normalizeToolName,
  sanitizeToolNamePart,
  ToolNameRegistry,
  toolNameHash,
  withHashSuffix,
} from '../../src/tools/names.js';

const SAFE = /^[A-Za-z_][A-Za-z0-9_-]{0,63}$/;
const name = (original: string, server = 's') => normalizeToolName(server, original).name;
const hash = (server: string, original: string) => toolNameHash(server, original);

describe('normalizeToolName', () => {
  it('keeps names that are already provider-safe', () => {
    for (const original of ['echo', 'read_file', 'get-weather', 'A1', '_private', 'x'.repeat(64)]) {
      const result = normalizeToolName('s', original);
      expect(result).toEqual({
        name: original,
        server: 's',
        originalName: original,
        changed: false,
        shortened: false,
        hashed: false,
      });
    }
  });

  it('replaces each run of other characters (dots, slashes, spaces, colons) with one underscore', () => {
    expect(name('files.read')).toBe('files_read');
    expect(name('files/read/v2')).toBe('files_read_v2');
    expect(name('a..b')).toBe('a_b');
    expect(name('a / b')).toBe('a_b');
    expect(name('ns:tool')).toBe('ns_tool');
    expect(name('tool!')).toBe('tool_');
    expect(normalizeToolName('s', 'files.read')).toMatchObject({
      changed: true,
      shortened: false,
      hashed: false,
    });
  });

  it('folds unicode to ASCII where it can (NFKD, marks dropped)', () => {
    expect(name('café')).toBe('cafe');
    expect(name('naïve-tool')).toBe('naive-tool');
    expect(name('ＡＢＣ')).toBe('ABC'); // full-width
    expect(name('ﬁle')).toBe('file'); // ligature
    expect(name('Ångström')).toBe('Angstrom');
    expect(name('rocket🚀launch')).toBe('rocket_launch');
    expect(name('straße')).toBe('stra_e');
  });

  it('gives names with nothing recognizable left a hashed fallback', () => {
    const cjk = normalizeToolName('s', '日本語');
    expect(cjk.name).toBe(`tool_${hash('s', '日本語')}`);
    expect(cjk.hashed).toBe(true);
    expect(name('検索')).not.toBe(name('日本語'));
    expect(name('...')).toBe(`tool_${hash('s', '...')}`);
    expect(name('')).toBe(`tool_${hash('s', '')}`);
    expect(name('___')).toBe(`tool_${hash('s', '___')}`);
  });

  it('makes names start with a letter or underscore', () => {
    expect(name('1tool')).toBe('_1tool');
    expect(name('-flag')).toBe('_-flag');
    expect(name('.hidden')).toBe('_hidden');
  });

  it('cuts names over 64 characters and appends a stable hash', () => {
    const long = `very_long_${'x'.repeat(100)}`;
    const result = normalizeToolName('s', long);
    expect(result.name).toHaveLength(MAX_TOOL_NAME_LENGTH);
    expect(result.name).toBe(`${long.slice(0, 55)}_${hash('s', long)}`);
    expect(result).toMatchObject({ shortened: true, hashed: true, changed: true });
    expect(name('y'.repeat(65))).toHaveLength(64);
    expect(name('y'.repeat(1000))).toHaveLength(64);
    // Two long names sharing their first 100 characters still differ.
    const prefix = 'p'.repeat(100);
    expect(name(`${prefix}a`)).not.toBe(name(`${prefix}b`));
    // Length is measured after sanitizing: 64 characters of unicode that fold to ASCII are not cut.
    expect(name('é'.repeat(64))).toBe('e'.repeat(64));
  });

  it('qualifies with the server on request', () => {
    expect(normalizeToolName('my.server', 'do/it', { qualify: true }).name).toBe('my_server__do_it');
    expect(normalizeToolName('9lives', 'x', { qualify: true }).name).toBe('_9lives__x');
    const long = normalizeToolName('s'.repeat(40), 't'.repeat(40), { qualify: true });
    expect(long.name).toHaveLength(64);
    expect(long.name.startsWith(`${'s'.repeat(40)}__`)).toBe(true);
  });

  it('is deterministic and uses SHA-256 over server and name', () => {
    expect(hash('srv', 'tool')).toBe(createHash('sha256').update('srv\u0000tool').digest('hex').slice(0, 8));
    expect(hash('srv', 'tool')).toMatch(/^[0-9a-f]{8}$/);
    expect(hash('srv', 'tool')).not.toBe(hash('other', 'tool'));
    expect(toolNameHash('srv', 'tool', 1)).not.toBe(hash('srv', 'tool'));
    const original = `${'z'.repeat(80)}.日本`;
    expect(normalizeToolName('s', original)).toEqual(normalizeToolName('s', original));
  });

  it('honours maxLength and refuses one too small for a suffix', () => {
    expect(normalizeToolName('s', 'a'.repeat(30), { maxLength: 20 }).name).toBe(
      `${'a'.repeat(11)}_${hash('s', 'a'.repeat(30))}`,
    );
    expect(() => normalizeToolName('s', 'a', { maxLength: 10 })).toThrow(RangeError);
    expect(() => new ToolNameRegistry({ maxLength: 64.5 })).toThrow(RangeError);
  });

  it('exposes its building blocks', () => {
    expect(sanitizeToolNamePart('a.b/c')).toBe('a_b_c');
    expect(withHashSuffix('abc', '12345678')).toBe('abc_12345678');
    expect(withHashSuffix('a'.repeat(70), '12345678')).toHaveLength(64);
    expect(isProviderSafeToolName('ok_name-1')).toBe(true);
    expect(isProviderSafeToolName('1bad')).toBe(false);
    expect(isProviderSafeToolName('bad.name')).toBe(false);
    expect(isProviderSafeToolName('x'.repeat(65))).toBe(false);
    expect(isProviderSafeToolName('')).toBe(false);
  });
});

describe('ToolNameRegistry', () => {
  it('maps normalized names back to server and original name', () => {
    const registry = new ToolNameRegistry();
    const entry = registry.register('files', 'read.file');
    expect(entry.name).toBe('read_file');
    expect(registry.resolve('read_file')).toEqual(entry);
    expect(registry.resolve('read_file')).toMatchObject({ server: 'files', originalName: 'read.file' });
    expect(registry.lookup('files', 'read.file')).toBe(entry);
    expect(registry.resolve('read.file')).toBeUndefined();
    expect(registry.register('files', 'read.file')).toBe(entry); // idempotent
    expect(registry.size).toBe(1);
  });

  it('suffixes every lossy member of a colliding batch, independent of order', () => {
    const sources = [
      { server: 's', name: 'a.b' },
      { server: 's', name: 'a b' },
      { server: 's', name: 'a/b' },
    ];
    const forward = new ToolNameRegistry().registerAll(sources).map((e) => e.name);
    const backward = new ToolNameRegistry()
      .registerAll([...sources].reverse())
      .map((e) => e.name)
      .reverse();
    expect(forward).toEqual(backward);
    expect(forward).toEqual([
      `a_b_${hash('s', 'a.b')}`,
      `a_b_${hash('s', 'a b')}`,
      `a_b_${hash('s', 'a/b')}`,
    ]);
    expect(new Set(forward).size).toBe(3);
  });

  it('lets an already-safe name keep its name against lossy lookalikes', () => {
    const registry = new ToolNameRegistry();
    const [dotted, plain] = registry.registerAll([
      { server: 's', name: 'a.b' },
      { server: 's', name: 'a_b' },
    ]);
    expect(plain!.name).toBe('a_b');
    expect(dotted!.name).toBe(`a_b_${hash('s', 'a.b')}`);
    expect(registry.resolve('a_b')!.originalName).toBe('a_b');
    expect(registry.resolve(dotted!.name)!.originalName).toBe('a.b');
  });

  it('never renames a registered tool; a later colliding one is suffixed', () => {
    const registry = new ToolNameRegistry();
    expect(registry.register('s', 'a.b').name).toBe('a_b');
    expect(registry.register('s', 'a b').name).toBe(`a_b_${hash('s', 'a b')}`);
    expect(registry.lookup('s', 'a.b')!.name).toBe('a_b');
    // A safe name that arrives late finds its name taken too.
    expect(registry.register('s', 'a_b').name).toBe(`a_b_${hash('s', 'a_b')}`);
    expect(
      registry
        .registerAll([
          { server: 's', name: 'a-b' },
          { server: 's', name: 'a:b' },
        ])
        .map((e) => e.name),
    ).toEqual(['a-b', `a_b_${hash('s', 'a:b')}`]);
  });

  it('separates equal names from different servers: suffixed unqualified, prefixed qualified', () => {
    const flat = new ToolNameRegistry().registerAll([
      { server: 'github', name: 'search' },
      { server: 'jira', name: 'search' },
    ]);
    expect(flat.map((e) => e.name)).toEqual([
      `search_${hash('github', 'search')}`,
      `search_${hash('jira', 'search')}`,
    ]);
    expect(flat.map((e) => e.server)).toEqual(['github', 'jira']);
    const qualified = new ToolNameRegistry({ qualify: true }).registerAll([
      { server: 'github', name: 'search' },
      { server: 'jira', name: 'search' },
    ]);
    expect(qualified.map((e) => e.name)).toEqual(['github__search', 'jira__search']);
  });

  it('resolves qualified names whose server/tool split is ambiguous', () => {
    // Server "a_" with tool "b" and server "a" with tool "_b" both give "a___b".
    expect(normalizeToolName('a_', 'b', { qualify: true }).name).toBe('a___b');
    expect(normalizeToolName('a', '_b', { qualify: true }).name).toBe('a___b');
    const registry = new ToolNameRegistry({ qualify: true });
    const entries = registry.registerAll([
      { server: 'a_', name: 'b' },
      { server: 'a', name: '_b' },
    ]);
    expect(entries.map((e) => e.name)).toEqual([`a___b_${hash('a_', 'b')}`, `a___b_${hash('a', '_b')}`]);
    expect(new Set(entries.map((e) => e.name)).size).toBe(2);
    for (const entry of entries) expect(registry.resolve(entry.name)).toEqual(entry);
  });

  it('keeps cut names apart when they share the cut prefix', () => {
    const prefix = 'q'.repeat(70);
    const entries = new ToolNameRegistry().registerAll([
      { server: 's', name: `${prefix}1` },
      { server: 's', name: `${prefix}2` },
    ]);
    expect(entries[0]!.name).not.toBe(entries[1]!.name);
    for (const entry of entries) expect(entry.name).toHaveLength(64);
  });

  it('survives a tool literally named like a suffixed name (salted hash)', () => {
    const registry = new ToolNameRegistry();
    const squatter = withHashSuffix('a_b', hash('s', 'a.b'));
    registry.register('s', squatter);
    registry.register('s', 'a_b');
    const dotted = registry.register('s', 'a.b');
    expect(dotted.name).toBe(withHashSuffix('a_b', toolNameHash('s', 'a.b', 1)));
    expect(new Set(registry.entries().map((e) => e.name)).size).toBe(3);
  });

  it('produces safe, unique, reversible names for arbitrary input', () => {
    // A deterministic pseudo-random mix of ASCII, punctuation, accents, CJK, emoji and lengths up to 120.
    let seed = 42;
    const random = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    const alphabet = [...'abcXYZ019_-./: é日本🚀\u0301\u200b'];
    const sources: Array<{ server: string; name: string }> = [];
    for (let i = 0; i < 600; i++) {
      const length = Math.floor(random() * 120);
      let original = '';
      for (let j = 0; j < length; j++) original += alphabet[Math.floor(random() * alphabet.length)];
      sources.push({ server: i % 3 === 0 ? 'one' : 'two.server', name: original });
    }
    const registry = new ToolNameRegistry();
    const entries = registry.registerAll(sources);
    const unique = new Map(sources.map((s) => [`${s.server}\u0000${s.name}`, s]));
    expect(new Set(entries.map((e) => e.name)).size).toBe(unique.size);
    for (const [index, entry] of entries.entries()) {
      expect(entry.name).toMatch(SAFE);
      expect(registry.resolve(entry.name)).toMatchObject({
        server: sources[index]!.server,
        originalName: sources[index]!.name,
      });
    }
    // Same set, shuffled: same names.
    const shuffled = [...sources].sort(() => random() - 0.5);
    const again = new ToolNameRegistry();
    again.registerAll(shuffled);
    for (const entry of entries)
      expect(again.lookup(entry.server, entry.originalName)!.name).toBe(entry.name);
  });
});
