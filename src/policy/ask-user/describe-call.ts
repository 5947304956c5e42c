/**
 * What a tool call will do, for a person deciding on it: the command line and its directory for
 * `run_command`, the file and a change summary for file writes, and otherwise the model's arguments without
 * agy's own bookkeeping keys (docs/reference/hooks.md#pretooluse-payload: `toolAction`, `toolSummary`, and
 * `Cwd`/`WaitMsBeforeAsync` on `run_command`). Every value is terminal-safe.
 */
import type { ToolInvocation } from '../../hooks/types.js';
import { terminalSafe } from '../../internal/terminal-text.js';

/** agy's keys that are not the model's arguments. */
const AGY_KEYS = new Set(['toolAction', 'toolSummary', 'WaitMsBeforeAsync']);
/** The keys naming the file or directory a built-in tool acts on, most telling first. */
const PATH_KEYS = ['TargetFile', 'AbsolutePath', 'DirectoryPath', 'SearchPath', 'File', 'Path'];
/** Keys holding the text a tool writes. */
const CONTENT_KEYS = ['CodeContent', 'ReplacementContent', 'Content'];

/** One `label: value` pair of the description. */
export interface CallDetail {
  /** `command`, `in`, `file`, `change`, `args`, … */
  label: string;
  /** The value, on one line (terminal-safe). */
  value: string;
}

function lineCount(text: string): number {
  if (text === '') return 0;
  return text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
}

function flat(value: string, max: number): string {
  const text = terminalSafe(value).replace(/\s*\n\s*/g, ' ⏎ ');
  return text.length > max ? `${text.slice(0, max - 1)}… (${text.length} chars)` : text;
}

/** The details of `call` worth showing, at most `max` characters each. */
export function describeToolCall(call: ToolInvocation, max = 2000): CallDetail[] {
  const args = call.args ?? {};
  const details: CallDetail[] = [];
  const used = new Set<string>(AGY_KEYS);
  const str = (key: string): string | undefined => {
    const value = args[key];
    return typeof value === 'string' ? value : undefined;
  };
  const command = str('CommandLine');
  if (command !== undefined) {
    details.push({ label: 'command', value: flat(command, max) });
    used.add('CommandLine');
    const cwd = str('Cwd');
    if (cwd !== undefined) details.push({ label: 'in', value: flat(cwd, max) });
    used.add('Cwd');
  }
  const pathKey = PATH_KEYS.find((k) => str(k) !== undefined);
  if (pathKey) {
    details.push({ label: 'file', value: flat(str(pathKey) ?? '', max) });
    used.add(pathKey);
  }
  const contentKey = CONTENT_KEYS.find((k) => str(k) !== undefined);
  if (contentKey) {
    const lines = lineCount(str(contentKey) ?? '');
    const verb = args.Overwrite === true ? 'overwrite with' : 'write';
    details.push({ label: 'change', value: `${verb} ${lines} line${lines === 1 ? '' : 's'}` });
    used.add(contentKey);
    used.add('Overwrite');
  }
  const rest = Object.fromEntries(Object.entries(args).filter(([k]) => !used.has(k)));
  if (Object.keys(rest).length > 0 || details.length === 0)
    details.push({ label: 'args', value: flat(JSON.stringify(rest) ?? '{}', max) });
  return details;
}
