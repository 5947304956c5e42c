/** Short, one-line renderings shared by the TTY and plain renderers. */
import type { ToolCall, TurnResult, Usage } from '../../index.js';
import { terminalSafe } from '../../internal/terminal-text.js';

const MAX_SUMMARY = 80;

/**
 * `text` (terminal-safe) on one line of at most `max` characters, cut at a word boundary when one is near, so
 * a reason never ends mid-word.
 */
export function oneLine(text: string, max = MAX_SUMMARY): string {
  const flat = terminalSafe(text).replace(/\s+/g, ' ').trim();
  const chars = Array.from(flat);
  if (chars.length <= max) return flat;
  const cut = chars.slice(0, max - 1).join('');
  const space = cut.lastIndexOf(' ');
  return `${space >= max * 0.6 ? cut.slice(0, space) : cut}…`;
}

/** `run_command ls -la`: the tool and its most telling argument. */
export function describeCall(call: ToolCall): string {
  const args = call.args ?? {};
  // agy's built-in tools name their main argument differently; the first string one is the useful one.
  const preferred = [
    'CommandLine',
    'AbsolutePath',
    'TargetFile',
    'Query',
    'Url',
    'DirectoryPath',
    'SearchPath',
  ];
  const key =
    preferred.find((k) => typeof args[k] === 'string') ??
    Object.keys(args).find((k) => typeof args[k] === 'string');
  const detail = key ? ` ${oneLine(String(args[key]), 60)}` : '';
  return `${call.name}${detail}`;
}

/** agy's words before a hook's reason on a denied tool step; the reason itself names who denied. */
const HOOK_DENIAL_PREFIX = /^tool call denied by pre-tool hook:\s*/;

/**
 * How a finished call ended, as the CLI labels it: `denied`, `failed`, `ok`, or `unsure` for a call that ended
 * DONE with neither output nor error, which agy also writes for a call it soft-denied (only the turn's result
 * says which: `ToolCall.denied` is set in place then).
 */
export function callVerdict(call: ToolCall): 'ok' | 'failed' | 'denied' | 'unsure' {
  if (call.denied) return 'denied';
  if (call.state === 'ERROR') return 'failed';
  if (call.output === undefined && call.error === undefined) return 'unsure';
  return 'ok';
}

/** The tool's outcome in a few words: who denied it, its error, or the first line of its output. */
export function describeOutcome(call: ToolCall): string {
  if (call.denied) {
    const reason = call.error?.message.replace(HOOK_DENIAL_PREFIX, '');
    return reason ? oneLine(reason) : "denied by agy's permission check";
  }
  if (call.state === 'ERROR') return oneLine(call.error?.message ?? 'failed');
  if (call.output === undefined || call.output === null || call.output === '')
    return call.denied ? 'denied' : 'done';
  const text = typeof call.output === 'string' ? call.output : JSON.stringify(call.output);
  return oneLine(text);
}

/** `1.2s`, `850ms`. */
export function formatDuration(ms: number): string {
  return ms < 1000 ? `${Math.round(ms)}ms` : `${(ms / 1000).toFixed(1)}s`;
}

/** `in 120 · out 40 · total 160 tokens`, or `usage unknown`. */
export function formatUsage(usage: Usage | null): string {
  if (!usage) return 'usage unknown';
  const cache = usage.cacheReadTokens ? ` · cache ${usage.cacheReadTokens}` : '';
  return `in ${usage.inputTokens} · out ${usage.outputTokens}${cache} · total ${usage.totalTokens} tokens`;
}

/** The closing line: status, duration, usage, and why it failed. */
export function summaryLine(result: TurnResult): string {
  const why =
    result.status === 'success' || !result.errorMessage ? '' : ` — ${oneLine(result.errorMessage, 200)}`;
  return `${result.status} · ${formatDuration(result.durationMs)} · ${formatUsage(result.usage)}${why}`;
}

/** `JSON.stringify(value)` with C1 controls escaped too (the C0 ones always are), so it is terminal-safe. */
export function jsonLine(value: unknown, indent?: number): string {
  return (JSON.stringify(value, null, indent) ?? 'null').replace(
    /[\u0080-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

/** The structured output as the CLI prints it. */
export function formatStructured(value: unknown): string {
  return `${jsonLine(value, 2)}\n`;
}

/** True for a step whose text belongs to the turn's own answer (not a subagent's). */
export function answerDelta(step: {
  type: string;
  textDelta?: string;
  subagent?: unknown;
}): string | undefined {
  if (step.type !== 'agent_response' || step.subagent) return undefined;
  return step.textDelta || undefined;
}
