/**
 * The client side of ACP's file system (`fs/read_text_file`, `fs/write_text_file`): the agent reads and writes
 * through the SDK, and only inside the workspaces (symlinks followed, `..` resolved, as `workspaceOnly` does).
 * A request outside them is refused with a JSON-RPC error; nothing is read or written. One exception: the
 * session's attachment files (the media parts the SDK wrote into its session directory) may be read, each
 * exactly, by real path; nothing else beside them, and never written.
 *
 * The agent is a peer that may race us: the path is resolved once, and then opened once, never checked and
 * reopened by name. The resolved parent directory is opened and its real identity checked against the
 * workspaces (on Linux `/proc/self/fd/N`, elsewhere its real path, compared by device and inode); the file is
 * then opened relative to that descriptor (`/proc/self/fd/N/name` on Linux) with `O_NOFOLLOW` (a symlink
 * swapped in for the file fails) and `O_NONBLOCK` (a FIFO never blocks one of Node's file-system threads),
 * and the opened descriptor must be a regular file. Reads are capped at `MAX_READ_BYTES`; a write truncates
 * only after these checks. A write's missing parent directories are made the same way, one at a time, each in
 * its held and checked parent.
 *
 * Without `/proc` (macOS; `directoryAccess: 'real-path'`) Node offers no open relative to a descriptor, so the
 * file is opened by the directory's checked real path, which re-resolves it: a directory on it swapped for a
 * symlink in between would be followed. So after the open the name must still hold the opened file and the
 * directory must still be the checked one at the same real path; else the request is refused before a byte is
 * written. What remains: a race won exactly there can make a write create an empty file or directory outside
 * (by name, as any create is without `openat`), never fill or truncate a file.
 */
import { constants, existsSync, type Stats } from 'node:fs';
import { type FileHandle, lstat, mkdir, open, readlink, realpath } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join } from 'node:path';
import { RequestError } from '@agentclientprotocol/sdk';
import type { AttachmentFiles } from '../../content/attachment-files.js';
import { isInside, resolveRealPath } from '../../internal/real-path.js';
import type {
  AcpReadTextFileRequest,
  AcpReadTextFileResponse,
  AcpWriteTextFileRequest,
  AcpWriteTextFileResponse,
} from '../../protocol/acp.js';

/** Largest file served to the agent, in bytes (a text file bigger than this is not source code). */
export const MAX_READ_BYTES = 16 * 1024 * 1024;

/**
 * How a held directory descriptor is located and opened relative to: `'proc-fd'` through `/proc/self/fd/N`
 * (Linux: the kernel names the directory the descriptor holds, and a path below it is resolved from that very
 * directory), `'real-path'` by its real path, checked by device and inode before and after the file is opened
 * (elsewhere: Node has no `openat`).
 */
export type DirectoryAccess = 'proc-fd' | 'real-path';

/** The best access this platform offers: `'proc-fd'` where `/proc/self/fd` exists (Linux), else `'real-path'`. */
export function platformDirectoryAccess(): DirectoryAccess {
  return process.platform === 'linux' && existsSync('/proc/self/fd') ? 'proc-fd' : 'real-path';
}

/** Opens a path (`fs/promises` `open`'s shape). */
export type OpenFile = (path: string, flags: number, mode?: number) => Promise<FileHandle>;

/** Options of {@link WorkspaceFileSystem}. */
export interface WorkspaceFileSystemOptions {
  /** How directories are reached by descriptor; default {@link platformDirectoryAccess} (tests pick either). */
  readonly directoryAccess?: DirectoryAccess;
  /** Every open of a directory or file goes through this; default `fs/promises` `open` (tests race it). */
  readonly openFile?: OpenFile;
  /** The attachment files a read may reach outside the workspaces (exactly these, by real path). */
  readonly attachments?: AttachmentFiles | undefined;
}

const { O_RDONLY, O_WRONLY, O_RDWR, O_CREAT, O_NOFOLLOW, O_NONBLOCK, O_DIRECTORY } = constants;

function sameFile(a: Stats, b: Stats): boolean {
  return a.dev === b.dev && a.ino === b.ino;
}

/** A directory held open for a request: its descriptor, identity and real path (inside the workspaces). */
interface HeldDirectory {
  readonly handle: FileHandle;
  readonly stat: Stats;
  readonly real: string;
}

function changedError(path: string): RequestError {
  return RequestError.invalidParams({ path }, `${path} changed while it was opened`);
}

/** Whether anything is at `path` (not following a last symlink). */
async function exists(path: string): Promise<boolean> {
  try {
    await lstat(path);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw err;
  }
}

/** A file-system error as the agent's JSON-RPC answer. */
function asRequestError(path: string, err: unknown): RequestError {
  if (err instanceof RequestError) return err;
  const e = err as NodeJS.ErrnoException;
  if (e.code === 'ENOENT') return RequestError.resourceNotFound(path);
  if (e.code === 'ELOOP') return RequestError.invalidParams({ path }, `${path} changed while it was opened`);
  if (e.code === 'ENXIO') return RequestError.invalidParams({ path }, `${path} is not a regular file`);
  return RequestError.invalidParams({ path }, e.message);
}

/** Reads and writes confined to `workspaces`. */
export class WorkspaceFileSystem {
  readonly #workspaces: readonly string[];
  readonly #baseDir: string;
  /** Directories are reached through `/proc/self/fd` (else by real path, checked by identity). */
  readonly #procFd: boolean;
  readonly #openFile: OpenFile;
  readonly #attachments: AttachmentFiles | undefined;

  constructor(workspaces: readonly string[], baseDir: string, options: WorkspaceFileSystemOptions = {}) {
    this.#workspaces = workspaces;
    this.#baseDir = baseDir;
    this.#procFd = (options.directoryAccess ?? platformDirectoryAccess()) === 'proc-fd';
    this.#openFile = options.openFile ?? open;
    this.#attachments = options.attachments;
  }

  async #roots(): Promise<string[]> {
    return Promise.all(this.#workspaces.map((w) => resolveRealPath(w, this.#baseDir)));
  }

  /**
   * The real path of `path` when it lies inside a workspace (or, for a read, is an attachment file); else a
   * JSON-RPC invalid-params error.
   */
  async contained(path: string, access: 'read' | 'write' = 'write'): Promise<string> {
    if (typeof path !== 'string' || !isAbsolute(path))
      throw RequestError.invalidParams({ path }, 'path must be absolute');
    const resolved = await resolveRealPath(path, this.#baseDir);
    const roots = await this.#roots();
    if (!roots.some((root) => isInside(root, resolved)) && !this.#isAttachment(access, resolved))
      throw RequestError.invalidParams({ path }, `${path} is outside the workspaces`);
    return resolved;
  }

  /** Whether a read of real path `resolved` reaches one of the session's attachment files. */
  #isAttachment(access: 'read' | 'write', resolved: string): boolean {
    return access === 'read' && this.#attachments?.has(resolved) === true;
  }

  /**
   * Opens the file at `path` once, inside the workspaces: its parent directory by descriptor (checked), the
   * file relative to it with `O_NOFOLLOW | O_NONBLOCK`, and only a regular file is kept.
   */
  async #open(path: string, flags: number, mode?: number): Promise<FileHandle> {
    const access = (flags & (O_WRONLY | O_RDWR)) === 0 ? 'read' : 'write';
    const real = await this.contained(path, access);
    // An attachment's directory is admitted only for that one file, and only for a read.
    const admit = this.#isAttachment(access, real) ? basename(real) : undefined;
    const dir = await this.#openDir(path, dirname(real), await this.#roots(), admit);
    let file: FileHandle | undefined;
    try {
      const at = this.#below(dir, basename(real));
      file = await this.#openFile(at, flags | O_NOFOLLOW | O_NONBLOCK, mode);
      const stat = await file.stat();
      if (!stat.isFile()) throw RequestError.invalidParams({ path }, `${path} is not a regular file`);
      // Without /proc the opened file must also be the one the name holds now (see `#stillThere`).
      if (!this.#procFd && !sameFile(await lstat(at), stat)) throw changedError(path);
      await this.#stillThere(dir, path);
      const opened = file;
      file = undefined;
      return opened;
    } catch (err) {
      throw asRequestError(path, err);
    } finally {
      await file?.close();
      await dir.handle.close();
    }
  }

  /**
   * The directory at `dirPath`, opened and checked inside the workspaces by where it really is (it may not be
   * `dirPath` any more: a component swapped meanwhile). With `admit`, a directory outside them also passes when
   * `admit` in it, where it really is, is an attachment file.
   */
  async #openDir(
    path: string,
    dirPath: string,
    roots: readonly string[],
    admit?: string,
  ): Promise<HeldDirectory> {
    const handle = await this.#openFile(dirPath, O_RDONLY | O_DIRECTORY | O_NONBLOCK);
    try {
      const stat = await handle.stat();
      const real = this.#procFd
        ? await readlink(`/proc/self/fd/${handle.fd}`)
        : await this.#locate(dirPath, stat, path);
      const attachment = admit !== undefined && this.#isAttachment('read', join(real, admit));
      if (!attachment && !roots.some((root) => isInside(root, real)))
        throw RequestError.invalidParams({ path }, `${path} is outside the workspaces`);
      return { handle, stat, real };
    } catch (err) {
      await handle.close();
      throw err;
    }
  }

  /** A path to `name` in the held directory: through its descriptor with /proc, else below its real path. */
  #below(dir: HeldDirectory, name: string): string {
    return this.#procFd ? `/proc/self/fd/${dir.handle.fd}/${name}` : join(dir.real, name);
  }

  /**
   * Without /proc, a path from `#below` is resolved by name once more, and a directory on it may have been
   * swapped for a symlink in between: after using it, the held directory must still be at its real path (a swap
   * must then land twice, exactly between these calls). With /proc there is nothing to check.
   */
  async #stillThere(dir: HeldDirectory, path: string): Promise<void> {
    if (!this.#procFd && (await this.#locate(dir.real, dir.stat, path)) !== dir.real)
      throw changedError(path);
  }

  /**
   * The real path of directory `dirPath`, which must be the directory held (`held`, by device and inode):
   * where there is no `/proc/self/fd`, the path is the only way back to it.
   */
  async #locate(dirPath: string, held: Stats, path: string): Promise<string> {
    const dirReal = await realpath(dirPath);
    const again = await this.#openFile(dirReal, O_RDONLY | O_DIRECTORY | O_NONBLOCK);
    try {
      if (!sameFile(await again.stat(), held)) throw changedError(path);
    } finally {
      await again.close();
    }
    return dirReal;
  }

  /**
   * Creates the missing directories of `dirPath` (0700) one at a time, each in its parent held and checked as
   * for a file: a recursive `mkdir` by name would follow a directory swapped for a symlink out of the workspace.
   */
  async #makeParents(path: string, dirPath: string): Promise<void> {
    const missing: string[] = [];
    let existing = dirPath;
    while (!(await exists(existing))) {
      missing.unshift(basename(existing));
      existing = dirname(existing);
    }
    const roots = await this.#roots();
    for (const name of missing) {
      const dir = await this.#openDir(path, existing, roots);
      try {
        await mkdir(this.#below(dir, name), { mode: 0o700 }).catch((err: NodeJS.ErrnoException) => {
          if (err.code !== 'EEXIST') throw err;
        });
        await this.#stillThere(dir, path);
      } finally {
        await dir.handle.close();
      }
      existing = join(existing, name);
    }
  }

  /** `fs/read_text_file`: the file's text, or the `limit` lines from 1-based `line`. */
  async read(params: AcpReadTextFileRequest): Promise<AcpReadTextFileResponse> {
    const file = await this.#open(params.path, O_RDONLY).catch((err: unknown) => {
      throw asRequestError(params.path, err);
    });
    let buf: Buffer;
    try {
      const tooBig = (): RequestError =>
        RequestError.invalidParams({ path: params.path }, `larger than ${MAX_READ_BYTES} bytes`);
      const statSize = (await file.stat()).size;
      if (statSize > MAX_READ_BYTES) throw tooBig();
      // Room for one byte more than the stat said, so a file that grew since is noticed; grows to the cap + 1.
      let cap = Buffer.allocUnsafe(statSize + 1);
      let size = 0;
      for (;;) {
        if (size === cap.length) {
          if (size > MAX_READ_BYTES) throw tooBig();
          const grown = Buffer.allocUnsafe(Math.min(cap.length * 2, MAX_READ_BYTES + 1));
          cap.copy(grown, 0, 0, size);
          cap = grown;
        }
        const { bytesRead } = await file.read(cap, size, cap.length - size, size);
        if (bytesRead === 0) break;
        size += bytesRead;
      }
      if (size > MAX_READ_BYTES) throw tooBig();
      buf = cap.subarray(0, size);
    } finally {
      await file.close();
    }
    let content = buf.toString('utf8');
    if (params.line != null || params.limit != null) {
      const lines = content.split('\n');
      const start = Math.max(0, (params.line ?? 1) - 1);
      const end = params.limit != null ? start + params.limit : lines.length;
      content = lines.slice(start, end).join('\n');
    }
    return { content };
  }

  /** `fs/write_text_file`: writes the whole file (0600 when new), creating parent directories inside the workspace. */
  async write(params: AcpWriteTextFileRequest): Promise<AcpWriteTextFileResponse> {
    const real = await this.contained(params.path);
    await this.#makeParents(params.path, dirname(real)).catch((err: unknown) => {
      throw asRequestError(params.path, err);
    });
    // Not O_TRUNC: the file is emptied only once it is known to be a regular file inside the workspace.
    const file = await this.#open(params.path, O_WRONLY | O_CREAT, 0o600);
    try {
      await file.truncate(0);
      await file.writeFile(params.content, 'utf8');
    } catch (err) {
      throw asRequestError(params.path, err);
    } finally {
      await file.close();
    }
    return {};
  }
}
