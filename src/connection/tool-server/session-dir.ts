/**
 * The per-session directory: private (0700 dirs, 0600 files), passed to agy with `--add-dir`, removed on
 * close. Directories left by crashed hosts are swept at the next start.
 *
 * Default location: `$XDG_DATA_HOME/agy-sdk/sessions`, but only when that path has no hidden segment (agy
 * ignores hidden `--add-dir` paths, and the usual `~/.local/share` is hidden); otherwise
 * `$XDG_RUNTIME_DIR/agy-sdk/sessions`, otherwise `<tmpdir>/agy-sdk-<uid>/sessions`.
 */
import { randomUUID } from 'node:crypto';
import { chmodSync, lstatSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdir, readdir, readFile, rm } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { dirname, isAbsolute, join, sep } from 'node:path';
import { ConfigError } from '../../errors.js';
import { mkdirParents } from '../../internal/mkdir.js';
import { hiddenSegment } from './hidden-path.js';

const OWNER_FILE = 'owner.json';

/** The default parent of session directories for this user. */
export function defaultDataDir(env: NodeJS.ProcessEnv = process.env): string {
  for (const base of [env.XDG_DATA_HOME, env.XDG_RUNTIME_DIR]) {
    if (base && isAbsolute(base)) {
      const dir = join(base, 'agy-sdk');
      if (!hiddenSegment(dir)) return dir;
    }
  }
  const uid = typeof process.getuid === 'function' ? process.getuid() : 'user';
  return join(tmpdir(), `agy-sdk-${uid}`);
}

/**
 * Creates `dir` (and parents) with mode 0700; refuses a symlink or a directory owned by someone else.
 * Tightens an existing directory's mode only when it is the SDK's own (`tighten`): a user-supplied `dataDir`
 * is never chmod-ed; the session directories below it are private either way.
 */
function ensurePrivateDir(dir: string, tighten: boolean): void {
  try {
    mkdirParents(dir, 0o700);
  } catch (err) {
    throw new ConfigError('dataDir', `cannot create ${dir}: ${(err as Error).message}`);
  }
  const st = lstatSync(dir);
  if (!st.isDirectory()) throw new ConfigError('dataDir', `${dir} is not a directory (a symlink?)`);
  if (typeof process.getuid === 'function' && st.uid !== process.getuid()) {
    throw new ConfigError('dataDir', `${dir} is owned by another user`);
  }
  if (tighten && (st.mode & 0o077) !== 0) chmodSync(dir, 0o700);
}

/** A file for {@link SessionDir.writeAllPrivate}. */
export interface PrivateFile {
  /** Its path relative to the session directory. */
  relative: string;
  /** What it holds. */
  content: string | Uint8Array;
  /** 0600 (the default), or 0700 for a script agy runs. */
  mode?: 0o600 | 0o700 | undefined;
}

let identity: { host: string; boot: string } | undefined;

/**
 * This machine and boot: a pid is only meaningful on the host (and boot) that wrote it. Read once per process
 * (every start wrote and swept with it: two /proc reads on the start's path); a host name changed later is
 * still this process's, and another host's live session is left alone either way.
 */
function hostIdentity(): { host: string; boot: string } {
  if (identity) return identity;
  let boot = '';
  try {
    boot = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
  } catch {
    // Not Linux: the host name alone has to do.
  }
  identity = { host: hostname(), boot };
  return identity;
}

/** Writes `file` with `mode`, set again after the write (`writeFile` applies it only when creating, through the umask). */
function writeWithMode(file: string, content: string | Uint8Array, mode: 0o600 | 0o700): void {
  writeFileSync(file, content, { mode });
  chmodSync(file, mode);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export class SessionDir {
  /** Absolute path of the session directory. */
  readonly path: string;
  /** The session id (the directory's name). */
  readonly id: string;
  #removed = false;
  /**
   * This process's session directories not yet removed: alive by definition, so a sweep never reads their owner
   * files (in a start storm every start swept a directory holding all the others').
   */
  static readonly #live = new Set<string>();

  private constructor(path: string, id: string) {
    this.path = path;
    this.id = id;
  }

  /**
   * Creates a fresh session directory under `dataDir` (default: see module doc), sweeping stale ones. A
   * `dataDir` the SDK chose itself (`ownDataDir`, or none given) is tightened to 0700 if it is not already.
   */
  static async create(
    opts: { dataDir?: string | undefined; ownDataDir?: boolean | undefined } = {},
  ): Promise<SessionDir> {
    const dataDir = opts.dataDir ?? defaultDataDir();
    if (!isAbsolute(dataDir))
      throw new ConfigError('dataDir', `must be an absolute path, got ${JSON.stringify(dataDir)}`);
    const sessions = join(dataDir, 'sessions');
    const hidden = hiddenSegment(sessions);
    if (hidden) {
      throw new ConfigError(
        'dataDir',
        `${sessions} has a hidden segment (${hidden}); agy silently ignores --add-dir paths under hidden directories`,
      );
    }
    // Our own directory is made synchronously (see writeAllPrivate); the sweep, which may read many other
    // directories, runs beside it on the thread pool. It leaves a directory without an owner file alone, and
    // this process's live ones unread.
    ensurePrivateDir(dataDir, opts.dataDir === undefined || opts.ownDataDir === true);
    ensurePrivateDir(sessions, true);
    const id = randomUUID();
    const path = join(sessions, id);
    const dir = new SessionDir(path, id);
    const swept = SessionDir.sweep(sessions);
    try {
      mkdirSync(path, { mode: 0o700 });
      SessionDir.#live.add(path);
      const owner = { pid: process.pid, ...hostIdentity(), createdAt: new Date().toISOString() };
      writeWithMode(join(path, OWNER_FILE), JSON.stringify(owner), 0o600);
      await swept;
    } catch (err) {
      // Nothing of a failed create is left behind (a half-made directory included), and no sweep still runs.
      await swept.catch(() => {});
      if (SessionDir.#live.has(path)) await dir.remove();
      throw err;
    }
    return dir;
  }

  /**
   * Removes session directories whose owning process is gone. Only directories written on this host and boot
   * are judged: on a data dir shared between machines (NFS, containers), another host's live session is left
   * alone.
   */
  static async sweep(sessionsDir: string): Promise<string[]> {
    const removed: string[] = [];
    const here = hostIdentity();
    let entries: string[];
    try {
      entries = await readdir(sessionsDir);
    } catch {
      return removed;
    }
    // Every owner file read at once: on a start storm each start sweeps a directory holding all the others'.
    await Promise.all(
      entries.map(async (entry) => {
        const dir = join(sessionsDir, entry);
        if (SessionDir.#live.has(dir)) return;
        let pid: number | undefined;
        try {
          const owner = JSON.parse(await readFile(join(dir, OWNER_FILE), 'utf8'));
          if (owner.host !== here.host || owner.boot !== here.boot) return;
          pid = owner.pid;
        } catch {
          // No owner file: a directory still being created, or not ours. Leave it alone.
          return;
        }
        if (typeof pid === 'number' && !isAlive(pid)) {
          await rm(dir, { recursive: true, force: true });
          removed.push(dir);
        }
      }),
    );
    return removed;
  }

  /** Writes a private file (0600) at a path relative to the session directory, creating 0700 parents. */
  async writePrivate(relative: string, content: string | Uint8Array): Promise<string> {
    const [file] = await this.writeAllPrivate([{ relative, content }]);
    return file!;
  }

  /**
   * Writes several private files (0600 unless a file says 0700, parents 0700) and returns their paths in order.
   *
   * Synchronously, in order, stopping at the first failure: these are a session's small configuration files,
   * written before agy can be spawned. Through the thread pool each file cost an open, a write, a close and a
   * chmod round trip, and a start waited ~3–6 ms on them on a loaded 2-core machine (about 1 ms this way). It
   * also means no write is ever in flight when the caller's cleanup removes the directory after a failure.
   */
  async writeAllPrivate(files: readonly PrivateFile[]): Promise<string[]> {
    const paths = files.map((f) => this.resolve(f.relative));
    // Each parent once (four hook files share one), then every file.
    for (const parent of new Set(paths.map((file) => dirname(file))))
      mkdirSync(parent, { recursive: true, mode: 0o700 });
    for (const [i, f] of files.entries()) writeWithMode(paths[i] as string, f.content, f.mode ?? 0o600);
    return paths;
  }

  /** The absolute path of `relative` inside the session directory; one that escapes it is a `ConfigError`. */
  resolve(relative: string): string {
    const file = join(this.path, relative);
    if (!file.startsWith(`${this.path}${sep}`)) {
      throw new ConfigError('path', `${relative} escapes the session directory`);
    }
    return file;
  }

  /** Creates (once) and returns a private subdirectory. */
  async subdir(relative: string): Promise<string> {
    const dir = join(this.path, relative);
    await mkdir(dir, { recursive: true, mode: 0o700 });
    return dir;
  }

  /** True while the directory exists. */
  get exists(): boolean {
    try {
      return lstatSync(this.path).isDirectory();
    } catch {
      return false;
    }
  }

  /** Removes the directory and everything in it. Idempotent. */
  async remove(): Promise<void> {
    if (this.#removed) return;
    this.#removed = true;
    SessionDir.#live.delete(this.path);
    await rm(this.path, { recursive: true, force: true });
  }
}
