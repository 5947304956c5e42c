/**
 * The file system an ACP agent is served (`fs-service.ts`, docs/reference/acp.md#hostile-agents), in both of its
 * ways to reach a directory by descriptor: `/proc/self/fd` (Linux) and the real-path fallback used where there
 * is no `/proc` (macOS), which is picked here by option so that it runs on Linux too. Both face the same escape
 * attempts: a symlink out of the workspace (to a file, to a directory), `..`, relative and outside absolute
 * paths, FIFOs, and a symlink swapped in while requests run, by a separate process flipping the path as fast as
 * it can.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  type DirectoryAccess,
  type OpenFile,
  platformDirectoryAccess,
  WorkspaceFileSystem,
} from '../../../src/connection/acp/fs-service.js';
import { AttachmentFiles } from '../../../src/content/attachment-files.js';

/** Flips `path` between a symlink to `target` and a regular file (or a directory) until killed. */
const SWAPPER = `
const { mkdirSync, rmSync, symlinkSync, writeFileSync } = require('node:fs');
const [path, target, kind] = process.argv.slice(1);
let flips = 0;
const swap = () => {
  try {
    rmSync(path, { force: true, recursive: true });
    if (flips++ % 2 === 0) symlinkSync(target, path);
    else if (kind === 'dir') mkdirSync(path);
    else writeFileSync(path, 'inside');
  } catch {}
  setImmediate(swap);
};
process.stdout.write('ready\\n');
swap();
`;

/** An operation's result, or the message it was refused with. */
type Outcome = { ok: true; value: unknown } | { ok: false; message: string };

const ACCESSES: DirectoryAccess[] =
  platformDirectoryAccess() === 'proc-fd' ? ['proc-fd', 'real-path'] : ['real-path'];

describe.each(ACCESSES)('WorkspaceFileSystem with %s directory access', (directoryAccess) => {
  let dir: string;
  let ws: string;
  let fs: WorkspaceFileSystem;
  let swapper: ChildProcess | undefined;
  const sessionId = 's';

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'acp-fs-'));
    ws = join(dir, 'ws');
    mkdirSync(ws);
    writeFileSync(join(dir, 'secret.txt'), 'SECRET');
    fs = new WorkspaceFileSystem([ws], ws, { directoryAccess });
  });
  afterEach(async () => {
    if (swapper && swapper.exitCode === null && swapper.signalCode === null) {
      swapper.kill();
      await once(swapper, 'exit');
    }
    swapper = undefined;
    rmSync(dir, { recursive: true, force: true });
  });

  /** Starts the swapper on `path` and waits until it runs. */
  async function swap(path: string, target: string, kind: 'file' | 'dir'): Promise<void> {
    swapper = spawn(process.execPath, ['-e', SWAPPER, path, target, kind], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    await once(swapper.stdout!, 'data');
  }

  /** Runs `op`; the error's message if it was refused. */
  async function outcome(op: () => Promise<unknown>): Promise<Outcome> {
    try {
      return { ok: true, value: await op() };
    } catch (err) {
      return { ok: false, message: (err as Error).message };
    }
  }

  /**
   * Runs `op(i)` against the swapper at least `min` times, then on until `met` holds of the outcomes (at most
   * `max` times): on a loaded machine a fixed count can fall wholly within one of the swap's states, and then
   * the test proves nothing (a CI run once saw 300 reads all refused).
   */
  async function race(
    op: (i: number) => Promise<unknown>,
    met: (results: Outcome[]) => boolean,
    min = 300,
    max = 5000,
  ): Promise<Outcome[]> {
    const results: Outcome[] = [];
    for (let i = 0; i < max && (i < min || !met(results)); i++) results.push(await outcome(() => op(i)));
    return results;
  }

  it('reads and writes inside the workspace (lines, limit, new parents 0700, new files 0600)', async () => {
    writeFileSync(join(ws, 'a.txt'), 'one\ntwo\nthree\n');
    expect(await fs.read({ sessionId, path: join(ws, 'a.txt') })).toEqual({ content: 'one\ntwo\nthree\n' });
    expect(await fs.read({ sessionId, path: join(ws, 'a.txt'), line: 2, limit: 1 })).toEqual({
      content: 'two',
    });
    await fs.write({ sessionId, path: join(ws, 'sub', 'deep', 'b.txt'), content: 'new' });
    expect(readFileSync(join(ws, 'sub', 'deep', 'b.txt'), 'utf8')).toBe('new');
    const mode = (p: string) => statSync(p).mode & 0o777;
    expect(mode(join(ws, 'sub', 'deep', 'b.txt'))).toBe(0o600);
    expect(mode(join(ws, 'sub'))).toBe(0o700);
    expect(mode(join(ws, 'sub', 'deep'))).toBe(0o700);
    // An existing file is replaced whole, not merged.
    await fs.write({ sessionId, path: join(ws, 'a.txt'), content: 'x' });
    expect(readFileSync(join(ws, 'a.txt'), 'utf8')).toBe('x');
  });

  it('refuses relative paths, outside absolute paths and `..` out of the workspace; `..` inside is fine', async () => {
    writeFileSync(join(ws, 'in.txt'), 'in');
    mkdirSync(join(ws, 'sub'));
    const refused = [
      () => fs.read({ sessionId, path: 'in.txt' }),
      () => fs.read({ sessionId, path: join(dir, 'secret.txt') }),
      () => fs.read({ sessionId, path: `${ws}/../secret.txt` }),
      () => fs.read({ sessionId, path: `${ws}/sub/../../secret.txt` }),
      () => fs.write({ sessionId, path: `${ws}/../escape.txt`, content: 'x' }),
      () => fs.write({ sessionId, path: join(dir, 'escape.txt'), content: 'x' }),
      () => fs.write({ sessionId, path: 'rel.txt', content: 'x' }),
    ];
    for (const op of refused) expect((await outcome(op)).ok).toBe(false);
    expect(existsSync(join(dir, 'escape.txt'))).toBe(false);
    expect(existsSync(join(ws, 'rel.txt'))).toBe(false);
    expect(await fs.read({ sessionId, path: `${ws}/sub/../in.txt` })).toEqual({ content: 'in' });
  });

  it('refuses symlinks out of the workspace, to a file and to a directory, for reads and writes', async () => {
    mkdirSync(join(dir, 'outside'));
    symlinkSync(join(dir, 'secret.txt'), join(ws, 'link.txt'));
    symlinkSync(join(dir, 'outside'), join(ws, 'linkdir'));
    const refused = [
      () => fs.read({ sessionId, path: join(ws, 'link.txt') }),
      () => fs.write({ sessionId, path: join(ws, 'link.txt'), content: 'overwritten' }),
      () => fs.read({ sessionId, path: join(ws, 'linkdir', 'x.txt') }),
      () => fs.write({ sessionId, path: join(ws, 'linkdir', 'x.txt'), content: 'x' }),
      () => fs.write({ sessionId, path: join(ws, 'linkdir', 'new', 'x.txt'), content: 'x' }),
    ];
    for (const op of refused) {
      const r = await outcome(op);
      expect(r.ok).toBe(false);
      if (!r.ok) expect(r.message).toMatch(/outside the workspaces/);
    }
    expect(readFileSync(join(dir, 'secret.txt'), 'utf8')).toBe('SECRET');
    expect(readdirSync(join(dir, 'outside'))).toEqual([]);
  });

  it('refuses a FIFO without blocking', async () => {
    execFileSync('mkfifo', [join(ws, 'pipe')]);
    const read = await outcome(() => fs.read({ sessionId, path: join(ws, 'pipe') }));
    const write = await outcome(() => fs.write({ sessionId, path: join(ws, 'pipe'), content: 'x' }));
    expect(read).toMatchObject({ ok: false, message: expect.stringMatching(/not a regular file/) });
    expect(write).toMatchObject({ ok: false, message: expect.stringMatching(/not a regular file/) });
  });

  it('a file swapped to a symlink while writes run never lets a write out', async () => {
    await swap(join(ws, 'f.txt'), join(dir, 'secret.txt'), 'file');
    const results = await race(
      (i) => fs.write({ sessionId, path: join(ws, 'f.txt'), content: `w${i}` }),
      (rs) => rs.some((r) => r.ok) && rs.some((r) => !r.ok),
    );
    // Both states were met (the swap really raced the writes), and the outside file never changed.
    expect(results.some((r) => r.ok)).toBe(true);
    expect(results.some((r) => !r.ok)).toBe(true);
    expect(readFileSync(join(dir, 'secret.txt'), 'utf8')).toBe('SECRET');
  });

  it('a file swapped to a symlink while reads run never returns the outside file', async () => {
    await swap(join(ws, 'f.txt'), join(dir, 'secret.txt'), 'file');
    const inside = (r: Outcome) => r.ok && (r.value as { content: string }).content === 'inside';
    const results = await race(
      () => fs.read({ sessionId, path: join(ws, 'f.txt') }),
      (rs) => rs.some(inside),
    );
    expect(results.some(inside)).toBe(true);
    expect(results.filter((r) => r.ok && (r.value as { content: string }).content === 'SECRET')).toEqual([]);
  });

  it('a directory swapped to a symlink under the path never lets a write or a read out', async () => {
    const outside = join(dir, 'outside');
    mkdirSync(outside);
    writeFileSync(join(outside, 'x.txt'), 'OUTSIDE');
    await swap(join(ws, 'd'), outside, 'dir');
    const refusedAsOutside = (r: Outcome) => !r.ok && /outside the workspaces/.test(r.message);
    // Writes and reads in turn.
    const results = await race(
      (i) =>
        i % 2 === 0
          ? fs.write({ sessionId, path: join(ws, 'd', 'x.txt'), content: `w${i}` })
          : fs.read({ sessionId, path: join(ws, 'd', 'x.txt') }),
      (rs) => rs.some(refusedAsOutside) && !rs.every(refusedAsOutside),
      400,
    );
    // Both states were met: the symlink (refused as outside) and the directory.
    const outsideRefusals = results.filter(refusedAsOutside).length;
    expect(outsideRefusals).toBeGreaterThan(0);
    expect(outsideRefusals).toBeLessThan(results.length);
    expect(readFileSync(join(outside, 'x.txt'), 'utf8')).toBe('OUTSIDE');
    expect(readdirSync(outside)).toEqual(['x.txt']);
    expect(results.filter((r) => r.ok && (r.value as { content?: string }).content === 'OUTSIDE')).toEqual(
      [],
    );
  });

  it('a directory swapped to a symlink while new parents are made never gets anything written outside', async () => {
    const outside = join(dir, 'outside');
    mkdirSync(outside);
    await swap(join(ws, 'd'), outside, 'dir');
    const refusedAsOutside = (r: Outcome) => !r.ok && /outside the workspaces/.test(r.message);
    const results = await race(
      (i) => fs.write({ sessionId, path: join(ws, 'd', 'a', 'b', 'x.txt'), content: `w${i}` }),
      (rs) => rs.some(refusedAsOutside),
      200,
    );
    expect(results.some(refusedAsOutside)).toBe(true);
    // With /proc each parent is made through its checked parent's descriptor: nothing appears outside. Without,
    // a mkdir is by name, and a race won exactly there leaves an empty directory, never a file.
    if (directoryAccess === 'proc-fd') expect(readdirSync(outside)).toEqual([]);
    else expect(execFileSync('find', [outside, '-type', 'f']).toString()).toBe('');
  });

  it('a directory swapped to a symlink right after the check, before the file is opened, never lets a write or a read out', async () => {
    // Deterministic: the swap happens inside the open of the file itself, after the directory was checked.
    const outside = join(dir, 'outside');
    mkdirSync(outside);
    writeFileSync(join(outside, 'x.txt'), 'OUTSIDE');
    const d = join(ws, 'd');
    const swapAtFileOpen: OpenFile = (path, flags, mode) => {
      if (path.endsWith('/x.txt') || path.endsWith('/new.txt')) {
        renameSync(d, `${d}.away`);
        symlinkSync(outside, d);
      }
      return open(path, flags, mode);
    };
    const raced = new WorkspaceFileSystem([ws], ws, { directoryAccess, openFile: swapAtFileOpen });
    const attempts = [
      () => raced.write({ sessionId, path: join(d, 'x.txt'), content: 'escaped' }),
      () => raced.read({ sessionId, path: join(d, 'x.txt') }),
    ];
    for (const attempt of attempts) {
      mkdirSync(d);
      writeFileSync(join(d, 'x.txt'), 'inside');
      const r = await outcome(attempt);
      // Either refused, or served from the directory that was checked (now at d.away), never from outside.
      if (r.ok && 'content' in (r.value as object))
        expect((r.value as { content: string }).content).toBe('inside');
      expect(readFileSync(join(outside, 'x.txt'), 'utf8')).toBe('OUTSIDE');
      expect(readdirSync(outside)).toEqual(['x.txt']);
      rmSync(d, { force: true });
      rmSync(`${d}.away`, { recursive: true, force: true });
    }
    // A new file: with /proc it is created in the checked directory; without, the create is by name and may
    // land outside, but it stays empty (refused before anything is written) — the fallback's one residue.
    mkdirSync(d);
    const created = await outcome(() =>
      raced.write({ sessionId, path: join(d, 'new.txt'), content: 'escaped' }),
    );
    if (directoryAccess === 'proc-fd') {
      expect(created.ok).toBe(true);
      expect(readFileSync(join(`${d}.away`, 'new.txt'), 'utf8')).toBe('escaped');
      expect(readdirSync(outside)).toEqual(['x.txt']);
    } else {
      expect(created).toMatchObject({
        ok: false,
        message: expect.stringMatching(/changed while it was opened/),
      });
      for (const f of readdirSync(outside).filter((f) => f !== 'x.txt'))
        expect(readFileSync(join(outside, f), 'utf8')).toBe('');
    }
  });

  describe('attachment files', () => {
    let attachments: AttachmentFiles;
    let attached: string;
    let attachedFs: WorkspaceFileSystem;
    const read = (path: string) => outcome(() => attachedFs.read({ sessionId, path }));

    beforeEach(async () => {
      // The session directory's attachments, outside the workspace, beside other session files.
      const att = join(dir, 'session', 'attachments');
      mkdirSync(att, { recursive: true });
      attached = join(att, '1-notes.txt');
      writeFileSync(attached, 'ATTACHED\n');
      writeFileSync(join(att, '2-other.txt'), 'SIBLING');
      writeFileSync(join(dir, 'session', 'settings.json'), 'SESSION');
      attachments = new AttachmentFiles();
      await attachments.add(attached);
      attachedFs = new WorkspaceFileSystem([ws], ws, { directoryAccess, attachments });
    });

    it('reads exactly an attachment file outside the workspaces', async () => {
      expect(await read(attached)).toEqual({ ok: true, value: { content: 'ATTACHED\n' } });
      // Through `..` (kept as written: not `join`, which would fold it) and through a symlink in the workspace it is still that file, so it is still admitted.
      expect(await read(`${dir}/session/x/../attachments/1-notes.txt`)).toMatchObject({
        ok: true,
      });
      symlinkSync(attached, join(ws, 'link-to-attachment'));
      expect(await read(join(ws, 'link-to-attachment'))).toMatchObject({ ok: true });
      // Without the attachment list nothing outside is read (the confinement as before).
      expect(await outcome(() => fs.read({ sessionId, path: attached }))).toMatchObject({
        ok: false,
        message: expect.stringMatching(/outside the workspaces/),
      });
    });

    it('refuses its siblings, its directory, `..` past it, a symlink beside it, and writes to it', async () => {
      const att = join(dir, 'session', 'attachments');
      symlinkSync(join(dir, 'secret.txt'), join(att, '3-link.txt'));
      for (const path of [
        join(att, '2-other.txt'),
        join(dir, 'session', 'settings.json'),
        join(att, '3-link.txt'),
        `${attached}/../2-other.txt`,
        `${attached}/../../settings.json`,
        join(dir, 'secret.txt'),
      ]) {
        expect(await read(path), path).toMatchObject({
          ok: false,
          message: expect.stringMatching(/outside the workspaces|not a directory|ENOTDIR/),
        });
      }
      expect(await read(att)).toMatchObject({ ok: false });
      const write = await outcome(() => attachedFs.write({ sessionId, path: attached, content: 'x' }));
      expect(write).toMatchObject({ ok: false, message: expect.stringMatching(/outside the workspaces/) });
      expect(readFileSync(attached, 'utf8')).toBe('ATTACHED\n');
    });

    it('refuses an attachment swapped for a symlink to a file outside', async () => {
      rmSync(attached);
      symlinkSync(join(dir, 'secret.txt'), attached);
      expect(await read(attached)).toMatchObject({
        ok: false,
        message: expect.stringMatching(/outside the workspaces/),
      });
    });
  });
});
