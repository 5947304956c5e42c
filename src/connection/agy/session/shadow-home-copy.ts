/**
 * Copying the user's skills and preference files into the shadow HOME without carrying secrets along.
 *
 * A skill tree may hold symlinks, and following them blindly copies whatever they point at: a skill linked
 * to `oauth_token.json` or `~/.ssh` would put the credential or private key into the session directory. So:
 * - each top-level item (a skill directory, `GEMINI.md`) is resolved once: a dotfiles-style link to a skill
 *   kept elsewhere still works, and that target's real path becomes the item's own tree;
 * - inside it, a symlink is followed only when its real target stays inside that tree; one that leaves it
 *   is skipped;
 * - no file that *is* a known credential (compared by device and inode, so a hard link or a rename inside
 *   the tree is caught too) is ever copied, nor anything under a credential directory;
 * - only regular files and directories are copied (a FIFO would block the read, a device is never data).
 * Everything skipped is reported through `warn`.
 */
import type { Stats } from 'node:fs';
import { chmod, copyFile, lstat, mkdir, readdir, realpath, stat } from 'node:fs/promises';
import { dirname, join, sep } from 'node:path';

/**
 * Files and directories under the user's HOME that hold credentials. Beyond agy's own sign-in state, the
 * usual places a skill link could reach: SSH and GPG keys, cloud and registry tokens.
 */
const CREDENTIAL_PATHS = [
  '.gemini/antigravity-cli/oauth_token.json',
  '.gemini/antigravity-cli/oauth_creds.json',
  '.gemini/antigravity-cli/google_accounts.json',
  '.gemini/oauth_creds.json',
  '.gemini/google_accounts.json',
  '.ssh',
  '.gnupg',
  '.aws',
  '.azure',
  '.kube',
  '.docker',
  '.config/gcloud',
  '.config/gh',
  '.netrc',
  '.git-credentials',
  '.npmrc',
  '.pypirc',
  'Library/Keychains',
];

/** Most files looked at when fingerprinting credential directories (bounds the walk of a huge `~/.aws`). */
const MAX_FINGERPRINTED = 10_000;

/** The user's credentials, by real path and by device:inode. */
export class CredentialSet {
  readonly #inodes = new Set<string>();
  readonly #realPaths: string[] = [];

  /** Collects the credentials found under `userHome`, plus `extraFiles` (e.g. agy's whole sign-in state). */
  static async collect(userHome: string, extraFiles: readonly string[] = []): Promise<CredentialSet> {
    const set = new CredentialSet();
    let budget = MAX_FINGERPRINTED;
    const visit = async (path: string): Promise<void> => {
      if (budget <= 0) return;
      let st: Stats;
      let real: string;
      try {
        st = await stat(path);
        real = await realpath(path);
      } catch {
        return;
      }
      budget -= 1;
      set.#inodes.add(inodeKey(st));
      set.#realPaths.push(real);
      if (st.isDirectory()) {
        for (const entry of await readdir(real).catch(() => [] as string[])) await visit(join(real, entry));
      }
    };
    for (const rel of CREDENTIAL_PATHS) await visit(join(userHome, rel));
    for (const file of extraFiles) await visit(file);
    return set;
  }

  /** Whether the file or directory at real path `real` (with stats `st`) is, or lies under, a credential. */
  has(real: string, st: Stats): boolean {
    if (this.#inodes.has(inodeKey(st))) return true;
    return this.#realPaths.some((c) => real === c || real.startsWith(c + sep));
  }

  /** Whether the file with stats `st` is a credential (same device and inode: a link or a copy by hard link). */
  hasFile(st: Stats): boolean {
    return this.#inodes.has(inodeKey(st));
  }

  /** Whether directory `real` contains a credential somewhere below it (e.g. a link to `~`). */
  contains(real: string): boolean {
    return this.#realPaths.some((c) => c.startsWith(real + sep));
  }
}

function inodeKey(st: Stats): string {
  return `${st.dev}:${st.ino}`;
}

function isInside(path: string, root: string): boolean {
  return path === root || path.startsWith(root === sep ? root : root + sep);
}

/**
 * Copies the top-level item `source` (a skills directory or a single file) to `target`, private, following
 * the rules in the module doc. Does nothing when `source` is absent or `target` exists already.
 */
export async function copyUserItem(
  source: string,
  target: string,
  credentials: CredentialSet,
  warn: (message: string) => void,
  perEntryRoots = false,
): Promise<void> {
  let real: string;
  let st: Stats;
  try {
    real = await realpath(source);
    st = await stat(real);
  } catch {
    return;
  }
  if (await exists(target)) return;
  if (credentials.has(real, st) || (st.isDirectory() && credentials.contains(real))) {
    warn(`${source} is or holds a credential (${real}); not copied into the shadow HOME`);
    return;
  }
  if (perEntryRoots && st.isDirectory()) {
    // A skills folder: every skill is its own tree (and may itself be a link to a folder kept elsewhere).
    await mkdir(target, { recursive: true, mode: 0o700 });
    await chmod(target, 0o700);
    for (const entry of await readdir(real)) {
      await copyUserItem(join(real, entry), join(target, entry), credentials, warn);
    }
    return;
  }
  await copyTree(real, target, real, credentials, warn, new Set());
}

async function copyTree(
  path: string,
  target: string,
  root: string,
  credentials: CredentialSet,
  warn: (message: string) => void,
  seen: Set<string>,
): Promise<void> {
  let st = await lstat(path);
  let real = path;
  if (st.isSymbolicLink()) {
    try {
      real = await realpath(path);
      st = await stat(real);
    } catch {
      warn(`${path} is a broken symlink; skipped in the shadow HOME`);
      return;
    }
    if (!isInside(real, root)) {
      warn(`${path} is a symlink leaving its skill (${real}); skipped in the shadow HOME`);
      return;
    }
  }
  if (credentials.has(real, st)) {
    warn(`${path} is a credential (${real}); never copied into the shadow HOME`);
    return;
  }
  if (st.isDirectory()) {
    // A link back up the tree would otherwise recurse forever.
    if (seen.has(real)) return;
    seen.add(real);
    await mkdir(target, { recursive: true, mode: 0o700 });
    await chmod(target, 0o700);
    for (const entry of await readdir(real)) {
      await copyTree(join(real, entry), join(target, entry), root, credentials, warn, seen);
    }
    return;
  }
  if (!st.isFile()) {
    warn(`${path} is not a regular file; skipped in the shadow HOME`);
    return;
  }
  await mkdir(dirname(target), { recursive: true, mode: 0o700 });
  await copyFile(real, target);
  await chmod(target, 0o600);
}

async function exists(path: string): Promise<boolean> {
  try {
    await lstat(path);
    return true;
  } catch {
    return false;
  }
}
