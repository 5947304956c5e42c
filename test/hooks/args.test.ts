import { describe, expect, it } from 'vitest';
import {
  createHookToolCall,
  mergeToolArgs,
  normalizeArgKeys,
  normalizeKey,
  withArgs,
} from '../../src/hooks/index.js';

describe('normalizeKey', () => {
  it.each([
    ['CommandLine', 'commandLine'],
    ['AbsolutePath', 'absolutePath'],
    ['Cwd', 'cwd'],
    ['commandLine', 'commandLine'],
    ['URLPath', 'urlPath'],
    ['ID', 'id'],
    ['dir_path', 'dirPath'],
    ['file-name', 'fileName'],
    ['_meta', '_meta'],
    ['', ''],
  ])('%s → %s', (key, expected) => {
    expect(normalizeKey(key)).toBe(expected);
  });
});

describe('normalizeArgKeys', () => {
  it('camelCases keys recursively through plain objects and arrays', () => {
    const args = {
      CommandLine: 'ls',
      Options: { SafeToAutoRun: true, Env: [{ Name: 'A', Value: '1' }] },
      Tags: ['KeepMe'],
    };
    expect(normalizeArgKeys(args)).toEqual({
      commandLine: 'ls',
      options: { safeToAutoRun: true, env: [{ name: 'A', value: '1' }] },
      tags: ['KeepMe'],
    });
  });

  it('leaves non-plain values alone and does not mutate its input', () => {
    const date = new Date(0);
    const args = { When: date, Count: 3, Nothing: null };
    const out = normalizeArgKeys(args);
    expect(out).toEqual({ when: date, count: 3, nothing: null });
    expect(out.when).toBe(date);
    expect(args).toEqual({ When: date, Count: 3, Nothing: null });
  });

  it('keeps a __proto__ key from JSON as plain data', () => {
    const args = JSON.parse('{"__proto__": {"Polluted": true}}') as Record<string, unknown>;
    const call = createHookToolCall({ id: '1', name: 'x', args });
    expect(Object.getPrototypeOf(call.args)).toBe(Object.prototype);
    expect(Object.hasOwn(call.args, '__proto__')).toBe(true);
    expect(Object.getPrototypeOf(call.normalizedArgs)).toBe(Object.prototype);
    const merged = mergeToolArgs({}, args);
    expect(Object.getPrototypeOf(merged)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).Polluted).toBeUndefined();
  });
});

describe('createHookToolCall', () => {
  it('derives normalizedArgs and keeps agy keys in args', () => {
    const call = createHookToolCall({
      id: 'c:4',
      name: 'run_command',
      args: { CommandLine: 'ls' },
      stepIndex: 4,
    });
    expect(call).toEqual({
      id: 'c:4',
      name: 'run_command',
      args: { CommandLine: 'ls' },
      normalizedArgs: { commandLine: 'ls' },
      stepIndex: 4,
    });
    expect('server' in call).toBe(false);
  });

  it("carries agy's toolAction/toolSummary and origin when given, and nothing when not", () => {
    // agy-real/hooks-anti-samcheonpo-agy-1.3.0/PreToolUse-write_to_file.json
    const call = createHookToolCall({
      id: 'c:6',
      name: 'write_to_file',
      args: { TargetFile: '/work/proj/b.txt', toolAction: 'Writing b.txt', toolSummary: 'Create b.txt' },
      stepIndex: 6,
      action: 'Writing b.txt',
      summary: 'Create b.txt',
      agy: { modelName: 'gemini-3.8-flash-high', workspacePaths: ['/work/proj'] },
    });
    expect(call).toMatchObject({
      action: 'Writing b.txt',
      summary: 'Create b.txt',
      agy: { modelName: 'gemini-3.8-flash-high', workspacePaths: ['/work/proj'] },
      normalizedArgs: { targetFile: '/work/proj/b.txt', toolAction: 'Writing b.txt' },
    });
    const bare = createHookToolCall({ id: 'x', name: 'ls' });
    expect(Object.keys(bare).sort()).toEqual(['args', 'id', 'name', 'normalizedArgs']);
  });

  it('sets server for MCP tools and treats non-object args as empty', () => {
    const call = createHookToolCall({ id: '1', name: 'query', args: 'oops', server: 'db' });
    expect(call.server).toBe('db');
    expect(call.args).toEqual({});
    expect(call.normalizedArgs).toEqual({});
  });
});

describe('mergeToolArgs / withArgs', () => {
  it('shallow-merges, and maps a camelCase key onto the existing agy key', () => {
    const merged = mergeToolArgs({ CommandLine: 'rm -rf /', Cwd: '/w' }, { commandLine: 'ls', Extra: 1 });
    expect(merged).toEqual({ CommandLine: 'ls', Cwd: '/w', Extra: 1 });
  });

  it('replaces nested objects rather than deep-merging them', () => {
    expect(mergeToolArgs({ Opts: { A: 1, B: 2 } }, { Opts: { A: 3 } })).toEqual({ Opts: { A: 3 } });
  });

  it('withArgs re-derives normalizedArgs', () => {
    const call = createHookToolCall({ id: '1', name: 'view_file', args: { AbsolutePath: '/a' } });
    const next = withArgs(call, { AbsolutePath: '/b' });
    expect(next.normalizedArgs).toEqual({ absolutePath: '/b' });
    expect(call.args).toEqual({ AbsolutePath: '/a' });
  });
});
