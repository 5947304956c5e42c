/**
 * The client side of ACP's file system (`fs/read_text_file`, `fs/write_text_file`): the agent reads and writes
 * through the SDK, and only inside the workspaces (symlinks followed, `..` resolved, as `workspaceOnly` does).
 * A request outside them is refused with a JSON-RPC error; nothing is read or written.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, isAbsolute } from 'node:path';
import { RequestError } from '@agentclientprotocol/sdk';
import { isInside, resolveRealPath } from '../../policy/workspace.js';
import type {
  AcpReadTextFileRequest,
  AcpReadTextFileResponse,
  AcpWriteTextFileRequest,
  AcpWriteTextFileResponse,
} from '../../protocol/acp.js';

/** Largest file served to the agent, in bytes (a text file bigger than this is not source code). */
export const MAX_READ_BYTES = 16 * 1024 * 1024;

/** Reads and writes confined to `workspaces`. */
export class WorkspaceFileSystem {
  readonly #workspaces: readonly string[];
  readonly #baseDir: string;

  constructor(workspaces: readonly string[], baseDir: string) {
    this.#workspaces = workspaces;
    this.#baseDir = baseDir;
  }

  /** The real path of `path` when it lies inside a workspace; else a JSON-RPC invalid-params error. */
  async contained(path: string): Promise<string> {
    if (typeof path !== 'string' || !isAbsolute(path))
      throw RequestError.invalidParams({ path }, 'path must be absolute');
    const resolved = await resolveRealPath(path, this.#baseDir);
    const roots = await Promise.all(this.#workspaces.map((w) => resolveRealPath(w, this.#baseDir)));
    if (!roots.some((root) => isInside(root, resolved)))
      throw RequestError.invalidParams({ path }, `${path} is outside the workspaces`);
    return resolved;
  }

  /** `fs/read_text_file`: the file's text, or the `limit` lines from 1-based `line`. */
  async read(params: AcpReadTextFileRequest): Promise<AcpReadTextFileResponse> {
    const real = await this.contained(params.path);
    const buf = await readFile(real).catch((err: NodeJS.ErrnoException) => {
      throw err.code === 'ENOENT'
        ? RequestError.resourceNotFound(params.path)
        : RequestError.invalidParams({ path: params.path }, err.message);
    });
    if (buf.byteLength > MAX_READ_BYTES)
      throw RequestError.invalidParams({ path: params.path }, `larger than ${MAX_READ_BYTES} bytes`);
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
    await mkdir(dirname(real), { recursive: true, mode: 0o700 });
    // Parents just created are inside the workspace; check again in case one was a symlink planted meanwhile.
    await this.contained(params.path);
    await writeFile(real, params.content, { mode: 0o600 });
    return {};
  }
}
