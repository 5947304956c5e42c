/**
 * The files the SDK wrote for a session's media parts (`materialize`). They live in the private session
 * directory, outside the workspaces, yet the model must read them: the workspace confinement (the SDK's
 * `workspaceOnly` rule and the ACP file system) admits exactly these files for reading, by real path, and
 * nothing else beside them.
 */
import { realpath } from 'node:fs/promises';

/** The real paths of one agent's attachment files; filled as attachments are written, kept for its lifetime. */
export class AttachmentFiles {
  readonly #files = new Set<string>();

  /**
   * Records a file the SDK has just written, by its real path (a symlinked temp directory, as on macOS, resolved
   * once here, so a later check compares real path to real path).
   */
  async add(file: string): Promise<void> {
    this.#files.add(await realpath(file));
  }

  /** Whether `resolved` (a real path, symlinks and `..` already resolved) is one of the attachment files. */
  has(resolved: string): boolean {
    return this.#files.has(resolved);
  }

  /** How many files are recorded. */
  get size(): number {
    return this.#files.size;
  }
}
