// SessionDir's batch write and its sweep, on a real temp data dir: every file of a batch written with its mode
// and its parents private, in order; a failing write stops the batch with nothing left in flight (so the
// caller's cleanup leaves nothing); a path that escapes refused before anything is written; and the sweep never
// judges this process's own live sessions by their owner file.
import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SessionDir } from '../../../src/connection/tool-server/session-dir.js';
import { ConfigError } from '../../../src/errors.js';

let dataDir: string;
const made: SessionDir[] = [];
beforeEach(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'agy-sdk-session-dir-'));
});
afterEach(async () => {
  for (const dir of made.splice(0)) await dir.remove();
  await rm(dataDir, { recursive: true, force: true });
});

async function create(): Promise<SessionDir> {
  const dir = await SessionDir.create({ dataDir });
  made.push(dir);
  return dir;
}

const modeOf = async (path: string) => (await stat(path)).mode & 0o777;

/** A pid no process can have: above the largest pid_max Linux allows (2^22). */
const NEVER_A_PID = 2 ** 22 + 4321;

describe('SessionDir.writeAllPrivate', () => {
  it('writes every file with its mode, parents 0700, and returns the paths in order', async () => {
    const dir = await create();
    const paths = await dir.writeAllPrivate([
      { relative: 'hooks/PreToolUse.curl', content: 'url = "x"\n' },
      { relative: 'hooks/PreToolUse.sh', content: '#!/bin/sh\n', mode: 0o700 },
      { relative: '.agents/plugins/agy-sdk/plugin.json', content: '{"name":"agy-sdk"}' },
    ]);
    expect(paths).toEqual([
      join(dir.path, 'hooks/PreToolUse.curl'),
      join(dir.path, 'hooks/PreToolUse.sh'),
      join(dir.path, '.agents/plugins/agy-sdk/plugin.json'),
    ]);
    expect(await readFile(paths[1]!, 'utf8')).toBe('#!/bin/sh\n');
    expect(await Promise.all(paths.map(modeOf))).toEqual([0o600, 0o700, 0o600]);
    for (const parent of ['hooks', '.agents', '.agents/plugins', '.agents/plugins/agy-sdk'])
      expect(await modeOf(join(dir.path, parent))).toBe(0o700);
  });

  it('stops at the first failing write, with nothing left in flight for the cleanup to race', async () => {
    const dir = await create();
    // `a/b` makes `a` a directory, so writing the file `a` fails (EISDIR); the batch goes no further.
    const failure = await dir
      .writeAllPrivate([
        { relative: 'a', content: 'file' },
        { relative: 'a/b', content: Buffer.alloc(1024 * 1024, 0x78) },
        { relative: 'c.json', content: '{}' },
      ])
      .then(
        () => undefined,
        (error: NodeJS.ErrnoException) => error,
      );
    expect(failure?.code).toBe('EISDIR');
    expect((await readdir(dir.path)).sort()).toEqual(['a', 'owner.json']);
    expect(await readdir(join(dir.path, 'a'))).toEqual([]);
    await dir.remove();
    // The batch is synchronous: nothing written after the rejection recreates what the cleanup removed.
    expect(await readdir(join(dataDir, 'sessions'))).toEqual([]);
  });

  it('refuses a path that escapes the directory before writing anything', async () => {
    const dir = await create();
    await expect(
      dir.writeAllPrivate([
        { relative: 'fine.json', content: '{}' },
        { relative: '../escaped.json', content: '{}' },
      ]),
    ).rejects.toBeInstanceOf(ConfigError);
    expect((await readdir(dir.path)).sort()).toEqual(['owner.json']);
    expect(await readdir(join(dataDir, 'sessions'))).toEqual([dir.id]);
  });
});

describe('SessionDir sweep', () => {
  it("never judges this process's live sessions by their owner file, and still sweeps a dead one", async () => {
    const ours = await create();
    // Its owner file now names a dead pid on this host: a sweep reading it would remove a live session.
    const owner = JSON.parse(await readFile(join(ours.path, 'owner.json'), 'utf8'));
    await writeFile(join(ours.path, 'owner.json'), JSON.stringify({ ...owner, pid: NEVER_A_PID }));
    // A session another process left behind, with the same dead owner.
    const stale = join(dataDir, 'sessions', 'stale');
    await mkdir(stale, { mode: 0o700 });
    await writeFile(join(stale, 'owner.json'), JSON.stringify({ ...owner, pid: NEVER_A_PID }));

    const next = await create();
    expect(ours.exists).toBe(true);
    expect(next.exists).toBe(true);
    await expect(stat(stale)).rejects.toMatchObject({ code: 'ENOENT' });
    expect((await readdir(join(dataDir, 'sessions'))).sort()).toEqual([ours.id, next.id].sort());
  });
});
