/**
 * `view_file` run for real on the file its (final, hook-modified) `AbsolutePath` names, for the default
 * script's reads of attached files. The DONE output is agy's summary form, `"<n> lines, <m> bytes"`
 * (agy-real/joiomi-playbook-plugin-agy-1.3.1/success-tools.stdout); a file that cannot be read is an ERROR
 * `TOOL_ERROR` with the OS's message.
 */
import { createReadStream } from 'node:fs';
import type { ToolOutcome } from './mcp-hub.js';
import type { ToolAction } from './scenario.js';

/**
 * Tool actions that run for real instead of returning a scripted output: only the default script builds these
 * (a scenario file cannot), keyed by the (internal) action object as `dynamicText` is.
 */
export const liveTools = new WeakMap<ToolAction, (args: Record<string, unknown>) => Promise<ToolOutcome>>();

/**
 * The file's lines (as an editor counts them: a last line without `\n` counts) and bytes, streamed, so a
 * large attachment (a video) is never held in memory.
 */
async function measure(path: string): Promise<{ lines: number; bytes: number }> {
  let lines = 0;
  let bytes = 0;
  let last = 0x0a;
  for await (const chunk of createReadStream(path) as AsyncIterable<Buffer>) {
    for (const byte of chunk) if (byte === 0x0a) lines++;
    bytes += chunk.length;
    if (chunk.length > 0) last = chunk[chunk.length - 1] as number;
  }
  return { lines: last === 0x0a ? lines : lines + 1, bytes };
}

/** Reads the file at `args.AbsolutePath`; agy's summary of it, or the failure. */
export async function viewFile(args: Record<string, unknown>): Promise<ToolOutcome> {
  const path = args.AbsolutePath;
  if (typeof path !== 'string' || path === '')
    return { error: { type: 'TOOL_ERROR', message: 'AbsolutePath must be a non-empty string' } };
  try {
    const { lines, bytes } = await measure(path);
    return { output: `${lines} lines, ${bytes} bytes` };
  } catch (err) {
    return { error: { type: 'TOOL_ERROR', message: (err as Error).message } };
  }
}

/** A `view_file` action on `path` that reads the file when it runs (through the hooks, like any tool). */
export function viewFileAction(path: string): ToolAction {
  const action: ToolAction = { tool: { name: 'view_file', parameters: { AbsolutePath: path } } };
  liveTools.set(action, viewFile);
  return action;
}
