/**
 * `workspaceOnly`: the path arguments of file tools must resolve inside the workspaces.
 * Resolution follows symlinks the way the OS would: each existing component is realpath'd (so a symlink
 * pointing out of the workspace is caught, and `..` applies to the real parent), a dangling symlink is
 * followed to its target, and components that do not exist yet are joined as written.
 */
import path from 'node:path';
import type { AttachmentFiles } from '../content/attachment-files.js';
import { normalizeKey } from '../hooks/args.js';
import type { ToolInvocation } from '../hooks/types.js';
import { isInside, resolveRealPath } from '../internal/real-path.js';
import { sameBuiltinTool } from '../model/tool-aliases.js';
import { deny } from './builders.js';

export { isInside, resolveRealPath };

import { PolicyConfigError } from './errors.js';
import type { Policy } from './types.js';

/** The name every `workspaceOnly` policy carries (and the deny reason shows). */
export const WORKSPACE_ONLY_POLICY_NAME = 'workspace_only';

/**
 * agy's built-in tools that take paths; checked in the specific bucket so that a specific `allow` for one of
 * them cannot reopen paths outside the workspace. Other built-in tools are checked by a global-wildcard rule.
 */
export const WORKSPACE_TOOLS: readonly string[] = [
  'view_file',
  'view_file_outline',
  'view_code_item',
  'view_content_chunk',
  'write_to_file',
  'replace_file_content',
  'multi_replace_file_content',
  'sed_file',
  'notebook_edit',
  'list_dir',
  'find_by_name',
  'grep_search',
  'codebase_search',
  'run_command',
];

/** Options of {@link workspaceOnly}. */
export interface WorkspaceOnlyOptions {
  /** Directory relative path arguments are resolved against; defaults to the first workspace. */
  baseDir?: string;
}

const PATH_SUFFIX = /(?:Path|Paths|File|Files|Dir|Dirs|Directory|Directories)$/;
const PATH_WORD = /^(?:cwd|path|paths|file|files|dir|dirs|directory|directories)$/;

/**
 * Whether an argument key names a path: `Cwd`, `Path`, `File`, `Dir`, `Directory` (and plurals), or a key
 * ending in one of them as a word (`AbsolutePath`, `TargetFile`, `DirectoryPath`, `SearchDirectory`).
 */
export function isPathKey(key: string): boolean {
  const camel = normalizeKey(key);
  return PATH_WORD.test(camel) || PATH_SUFFIX.test(camel);
}

/** The path values among a call's top-level args (strings, or arrays of strings, under path keys). */
export function pathArgs(call: ToolInvocation): { key: string; value: string }[] {
  const found: { key: string; value: string }[] = [];
  for (const [key, value] of Object.entries(call.args)) {
    if (!isPathKey(key)) continue;
    const values = Array.isArray(value) ? value : [value];
    for (const v of values) if (typeof v === 'string' && v.trim() !== '') found.push({ key, value: v });
  }
  return found;
}

/** The path args of `call` that resolve outside every workspace. */
export async function pathsOutside(
  call: ToolInvocation,
  workspaces: readonly string[],
  baseDir: string,
): Promise<{ key: string; value: string; resolved: string }[]> {
  const candidates = pathArgs(call);
  if (candidates.length === 0) return [];
  const roots = await Promise.all(workspaces.map((w) => resolveRealPath(w, baseDir)));
  const outside: { key: string; value: string; resolved: string }[] = [];
  for (const { key, value } of candidates) {
    const resolved = await resolveRealPath(value, baseDir);
    if (!roots.some((root) => isInside(root, resolved))) outside.push({ key, value, resolved });
  }
  return outside;
}

/**
 * agy's built-in tools that read one file: the only ones an attachment file is admitted to (its other
 * backends' names match through `model/tool-aliases.ts`). A write, a listing or a command never reaches it.
 */
export const ATTACHMENT_READ_TOOLS: readonly string[] = [
  'view_file',
  'view_file_outline',
  'view_code_item',
  'view_content_chunk',
];

/** Whether `call` is a built-in tool that reads one file (so it may read an attachment). */
function readsOneFile(call: ToolInvocation): boolean {
  return call.server === undefined && ATTACHMENT_READ_TOOLS.some((tool) => sameBuiltinTool(tool, call.name));
}

/**
 * Denies calls whose path arguments resolve outside `workspaces` (symlinks followed, `..` and relative
 * paths handled). Covers agy's file tools in the specific bucket and any other built-in tool with path-like
 * args (`AbsolutePath`, `TargetFile`, `DirectoryPath`, `SearchPath`, `Cwd`, `…Path`/`…File`/`…Dir`/
 * `…Directory`) through a global-wildcard rule. MCP tools are not checked (their paths may not be local).
 * `run_command`'s command line is not parsed; only its `Cwd` is checked.
 */
export function workspaceOnly(workspaces: readonly string[], options: WorkspaceOnlyOptions = {}): Policy[] {
  return confinement(workspaces, options, undefined);
}

/**
 * The SDK's own confinement for an agent with `workspaces` (prepended to the user's policies): {@link
 * workspaceOnly}, except that the read tools ({@link ATTACHMENT_READ_TOOLS}) may also read exactly the
 * agent's attachment files, compared by real path after symlinks and `..` are resolved (so a sibling in the
 * session directory, the directory itself, or a symlink swapped in for an attachment stays denied).
 */
export function sdkWorkspaceConfinement(
  workspaces: readonly string[],
  attachments: AttachmentFiles,
): Policy[] {
  return confinement(workspaces, {}, attachments);
}

function confinement(
  workspaces: readonly string[],
  options: WorkspaceOnlyOptions,
  attachments: AttachmentFiles | undefined,
): Policy[] {
  if (!Array.isArray(workspaces) || workspaces.length === 0) {
    throw new PolicyConfigError(
      'workspaceOnly needs at least one workspace directory',
      WORKSPACE_ONLY_POLICY_NAME,
    );
  }
  for (const w of workspaces) {
    if (typeof w !== 'string' || w.trim() === '') {
      throw new PolicyConfigError(
        `Invalid workspace directory ${JSON.stringify(w)}`,
        WORKSPACE_ONLY_POLICY_NAME,
      );
    }
  }
  // Fixed now: relative workspaces must not move if the process later changes directory.
  const dirs = workspaces.map((w) => path.resolve(w));
  const baseDir = options.baseDir === undefined ? dirs[0]! : path.resolve(options.baseDir);
  const message = `path arguments must resolve inside ${dirs.map((d) => `'${d}'`).join(', ')}`;
  const escapes = async (_args: unknown, call: ToolInvocation): Promise<boolean> => {
    if (call.server !== undefined) return false;
    const outside = await pathsOutside(call, dirs, baseDir);
    if (outside.length === 0) return false;
    // An attachment file is admitted to a read tool, by its real path; anything else outside still escapes.
    return !(attachments && readsOneFile(call) && outside.every((p) => attachments.has(p.resolved)));
  };
  return [
    ...WORKSPACE_TOOLS.map((tool) =>
      deny(tool, { when: escapes, name: WORKSPACE_ONLY_POLICY_NAME, message }),
    ),
    deny('*', { when: escapes, name: WORKSPACE_ONLY_POLICY_NAME, message }),
  ];
}
