/** Ready-made policy sets. */
import type { AskUserHandler } from './ask-user/types.js';
import { allow, askUser, deny } from './builders.js';
import type { Policy } from './types.js';

/**
 * agy's built-in tools that only read (files, directories, the web), and `finish`, which ends the turn: every
 * tool of `BuiltinTools.readOnly()` and agy's other readers. {@link safeDefaults} approves them.
 */
export const READ_ONLY_TOOLS: readonly string[] = [
  'view_file',
  'view_file_outline',
  'view_code_item',
  'view_content_chunk',
  'list_dir',
  'find_by_name',
  'grep_search',
  'codebase_search',
  'read_url_content',
  'search_web',
  'finish',
];

/** Approves the read-only built-in tools and asks `handler` about everything else (MCP tools included). */
export function safeDefaults(handler: AskUserHandler): Policy[] {
  return [
    ...READ_ONLY_TOOLS.map((tool) => allow(tool, { name: 'safe_defaults' })),
    askUser('*', { handler, name: 'safe_defaults' }),
  ];
}

/**
 * The Python SDK's default: every tool is allowed except `run_command`, which is denied, or, with a
 * handler, needs a human's approval.
 */
export function confirmRunCommand(handler?: AskUserHandler): Policy[] {
  const name = 'confirm_run_command';
  return [
    handler
      ? askUser('run_command', { handler, name })
      : deny('run_command', {
          name,
          message: 'run_command needs approval; configure an approval handler or an explicit allow policy',
        }),
    allow('*', { name }),
  ];
}
