/**
 * Where a path really leads: symlinks followed (dangling ones too) and `..` applied to real parents, the way the
 * OS would reach it. Both the workspace policies and the ACP backend's file service confine paths with it.
 */
import { lstat, readlink, realpath } from 'node:fs/promises';
import { homedir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const MAX_SYMLINKS = 40;

/**
 * Resolves `input` to the real path the OS would reach: relative to `baseDir`, `~` and `file://` expanded,
 * symlinks followed (dangling ones too), `..` applied to real parents; missing components kept as written.
 * Throws on symlink loops and on filesystem errors other than "does not exist".
 */
export async function resolveRealPath(input: string, baseDir: string): Promise<string> {
  return resolveFrom(expand(input, baseDir), 0);
}

function expand(input: string, baseDir: string): string {
  let p = input.trim();
  if (p.startsWith('file://')) p = fileURLToPath(p);
  else if (p === '~' || p.startsWith('~/') || p.startsWith('~\\')) p = homedir() + p.slice(1);
  // Not path.resolve: it would apply `..` lexically, before symlinks are known.
  return path.isAbsolute(p) ? p : `${path.resolve(baseDir)}${path.sep}${p}`;
}

async function resolveFrom(absolute: string, depth: number): Promise<string> {
  const { root } = path.parse(absolute);
  const parts = absolute.slice(root.length).split(path.sep === '\\' ? /[\\/]+/ : /\/+/);
  let current = root;
  for (const part of parts) {
    if (part === '' || part === '.') continue;
    if (part === '..') {
      current = path.dirname(current);
      continue;
    }
    current = await resolveComponent(path.join(current, part), depth);
  }
  return current;
}

async function resolveComponent(candidate: string, depth: number): Promise<string> {
  try {
    return await realpath(candidate);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'ENOENT' && code !== 'ENOTDIR') throw error;
  }
  // Missing; but a dangling symlink would be followed on write, so resolve where it points.
  const stats = await lstat(candidate).catch(() => undefined);
  if (!stats?.isSymbolicLink()) return candidate;
  if (depth >= MAX_SYMLINKS) throw new Error(`Too many levels of symbolic links at ${candidate}`);
  const target = await readlink(candidate);
  const absolute = path.isAbsolute(target) ? target : `${path.dirname(candidate)}${path.sep}${target}`;
  return resolveFrom(absolute, depth + 1);
}

/** Whether `child` is `parent` or inside it (both already resolved). */
export function isInside(parent: string, child: string): boolean {
  const rel = path.relative(parent, child);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel));
}
