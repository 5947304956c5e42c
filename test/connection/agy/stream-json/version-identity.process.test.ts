// "An agy that updated itself is seen as the new version": agy updates itself in place, and the `agy --version`
// answer was cached per binary path for the life of the process, so a long-running host kept the old build's
// semantics. See docs/reference/process.md#version-probe-and-self-update.
import { chmodSync, mkdirSync, readFileSync, renameSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cachedAgyVersion, probeAgyVersion } from '../../../../src/connection/agy/stream-json/binary.js';
import { type Sandbox, sandbox } from '../../../helpers/sandbox.js';

let box: Sandbox;
beforeEach(async () => {
  box = await sandbox();
});
afterEach(() => box.cleanup());

/** Writes a fake agy answering `version` (the padding changes its size) that counts its runs in `count`. */
function fakeAgy(path: string, version: string, count: string, padding = ''): void {
  writeFileSync(path, `#!/bin/sh\n# ${padding}\necho run >> '${count}'\necho 'agy version ${version}'\n`);
  chmodSync(path, 0o755);
}

/** How often the fake ran. */
function runs(count: string): number {
  try {
    return readFileSync(count, 'utf8').split('\n').filter(Boolean).length;
  } catch {
    return 0;
  }
}

describe.skipIf(process.platform === 'win32')('the version answer follows the build behind the path', () => {
  it('a binary replaced at the same path is probed again; the same build is answered from the cache', async () => {
    const agy = join(box.root, 'agy');
    const count = join(box.root, 'count');
    const env = { PATH: process.env.PATH };
    fakeAgy(agy, '1.3.3', count);
    expect(await probeAgyVersion(agy, env, { cwd: box.root })).toBe('1.3.3');
    expect(await probeAgyVersion(agy, env, { cwd: box.root })).toBe('1.3.3');
    expect(runs(count)).toBe(1);
    // The updater writes the new build beside the old one and renames it over: a new inode, size and mtime.
    const staged = join(box.root, 'agy.new');
    fakeAgy(staged, '1.5.0', count, 'a newer build');
    renameSync(staged, agy);
    expect(cachedAgyVersion(agy, env)).toBeUndefined();
    expect(await probeAgyVersion(agy, env, { cwd: box.root })).toBe('1.5.0');
    expect(await probeAgyVersion(agy, env, { cwd: box.root })).toBe('1.5.0');
    expect(cachedAgyVersion(agy, env)).toBe('1.5.0');
    expect(runs(count)).toBe(2);
  });

  it('a file rewritten in place (same inode) is probed again', async () => {
    const agy = join(box.root, 'agy');
    const count = join(box.root, 'count');
    const env = { PATH: process.env.PATH };
    fakeAgy(agy, '1.3.3', count);
    expect(await probeAgyVersion(agy, env, { cwd: box.root })).toBe('1.3.3');
    fakeAgy(agy, '1.3.4', count, 'rewritten');
    expect(await probeAgyVersion(agy, env, { cwd: box.root })).toBe('1.3.4');
    expect(runs(count)).toBe(2);
  });

  it('a symlink moved to another build is probed again, and each build keeps its own answer', async () => {
    const count = join(box.root, 'count');
    const env = { PATH: process.env.PATH };
    mkdirSync(join(box.root, 'v1'));
    mkdirSync(join(box.root, 'v2'));
    fakeAgy(join(box.root, 'v1', 'agy'), '1.3.3', count);
    fakeAgy(join(box.root, 'v2', 'agy'), '1.5.8', count);
    const link = join(box.root, 'agy');
    symlinkSync(join(box.root, 'v1', 'agy'), link);
    expect(await probeAgyVersion(link, env, { cwd: box.root })).toBe('1.3.3');
    const moved = join(box.root, 'agy.next');
    symlinkSync(join(box.root, 'v2', 'agy'), moved);
    renameSync(moved, link);
    expect(await probeAgyVersion(link, env, { cwd: box.root })).toBe('1.5.8');
    // The first build, reached by its own path, is still the cached 1.3.3.
    expect(await probeAgyVersion(join(box.root, 'v1', 'agy'), env, { cwd: box.root })).toBe('1.3.3');
    expect(runs(count)).toBe(2);
  });

  it('a binary that vanished is not answered from the cache', async () => {
    const agy = join(box.root, 'agy');
    const count = join(box.root, 'count');
    const env = { PATH: process.env.PATH };
    fakeAgy(agy, '1.3.3', count);
    expect(await probeAgyVersion(agy, env, { cwd: box.root })).toBe('1.3.3');
    renameSync(agy, join(box.root, 'gone'));
    expect(cachedAgyVersion(agy, env)).toBeUndefined();
  });
});
