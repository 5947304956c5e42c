/** Short, one-line renderings shared by the TTY and plain renderers. */
import type { ToolCall, TurnResult, Usage } from '../../index.js';

const MAX_SUMMARY = 80;

/** Cuts `text` to one line of at most `max` characters. */
export function oneLine(text: string, max = MAX_SUMMARY): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
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

/** The tool's outcome in a few words: its error, or the first line of its output. */
export function describeOutcome(call: ToolCall): string {
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

/** The structured output as the CLI prints it. */
export function formatStructured(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
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
