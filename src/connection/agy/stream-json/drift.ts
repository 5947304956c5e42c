/**
 * Runtime drift: what agy writes that this SDK does not know (an event, a step type or state, a result
 * status, a field of `init`, of a step, tool, usage or result object) is counted per session and reported once per name
 * through the logger, so "agy 1.4.0 writes a field this SDK does not know" is seen before anything breaks
 * (docs/reference/stream-json.md#drift-tolerance). The known sets are the wire-fact catalogue's
 * (docs/reference/wire-facts.json, checked equal by test/connection/agy/stream-json/wire-facts.test.ts). Per line the cost is
 * one `Set.has` per key and no allocation unless something is unknown.
 */
import type { Logger } from '../../../logger.js';

/** What kind of unknown thing agy wrote. */
export type DriftKind = 'event' | 'step_type' | 'state' | 'status' | 'field';

/** One unknown name, as seen in a session. */
export interface DriftEntry {
  /** What kind of name. */
  kind: DriftKind;
  /**
   * The name: for a field its whole path from the event (`step_update.stepIndex`,
   * `step_update.tool_info.exit_code`, `step_update.usage.audio_tokens`, `result.usage.audio_tokens`), else the
   * value (`thinking` for a step type).
   */
  name: string;
  /** How many times it was seen in this session. */
  count: number;
  /** The agy version that wrote it (`null` when not known yet). */
  agyVersion: string | null;
}

/** The catalogue's known names (docs/reference/wire-facts.json `known`). */
export const KNOWN = {
  events: new Set(['init', 'step_update', 'result', 'command_result']),
  initFields: new Set([
    'conversation_id',
    'cwd',
    'model',
    'tools',
    'permission_mode',
    'agent',
    'json_schema',
  ]),
  stepTypes: new Set([
    'user_input',
    'agent_response',
    'tool',
    'tool_call',
    'system_message',
    'checkpoint',
    'error_message',
    'unknown',
    'subagent',
    'finish',
  ]),
  states: new Set(['ACTIVE', 'DONE', 'ERROR']),
  statuses: new Set(['SUCCESS', 'ERROR', 'INTERRUPTED', 'CANCELED', 'INVALID', 'WAITING', 'RUNNING']),
  stepFields: new Set([
    'conversation_id',
    'step_index',
    'state',
    'step_type',
    'text_delta',
    'duration_seconds',
    'usage',
    'tool_info',
    'tool_name',
    'subagent_info',
    'error',
    'error_message',
    'message',
    'text',
    'user_input',
  ]),
  toolInfoFields: new Set(['name', 'parameters', 'output', 'error']),
  usageFields: new Set([
    'input_tokens',
    'output_tokens',
    'thinking_tokens',
    'cache_read_tokens',
    'total_tokens',
  ]),
  resultFields: new Set([
    'conversation_id',
    'status',
    'response',
    'error',
    'duration_seconds',
    'num_turns',
    'usage',
    'denied_actions',
    'structured_output',
    'json_schema',
    'command',
  ]),
} as const;

/** Counts unknown names for one session and logs each the first time. */
export class DriftTracker {
  readonly #entries = new Map<string, DriftEntry>();
  readonly #list: DriftEntry[] = [];
  readonly #logger: Logger;
  readonly #version: () => string | null;

  constructor(logger: Logger, version: () => string | null) {
    this.#logger = logger;
    this.#version = version;
  }

  /** Every unknown name seen so far (live: counts go up). */
  get entries(): readonly DriftEntry[] {
    return this.#list;
  }

  /** Checks the `init` payload. */
  init(w: Record<string, unknown>): void {
    for (const key in w) if (!KNOWN.initFields.has(key)) this.#note('field', 'init', key);
  }

  /** Checks one `step_update` payload. */
  step(w: Record<string, unknown>): void {
    for (const key in w) if (!KNOWN.stepFields.has(key)) this.#note('field', 'step_update', key);
    const type = w.step_type;
    if (typeof type === 'string' && !KNOWN.stepTypes.has(type)) this.#note('step_type', type);
    const state = w.state;
    if (typeof state === 'string' && !KNOWN.states.has(state)) this.#note('state', state);
    const info = w.tool_info;
    if (typeof info === 'object' && info !== null)
      for (const key in info)
        if (!KNOWN.toolInfoFields.has(key)) this.#note('field', 'step_update.tool_info', key);
    const usage = w.usage;
    if (typeof usage === 'object' && usage !== null)
      for (const key in usage) if (!KNOWN.usageFields.has(key)) this.#note('field', 'step_update.usage', key);
  }

  /** Checks one `result` payload. */
  result(r: Record<string, unknown>): void {
    for (const key in r) if (!KNOWN.resultFields.has(key)) this.#note('field', 'result', key);
    const status = r.status;
    if (typeof status === 'string' && !KNOWN.statuses.has(status)) this.#note('status', status);
    const usage = r.usage;
    if (typeof usage === 'object' && usage !== null)
      for (const key in usage) if (!KNOWN.usageFields.has(key)) this.#note('field', 'result.usage', key);
  }

  /** An event name this SDK does not know. */
  event(name: string): void {
    this.#note('event', name);
  }

  #note(kind: DriftKind, where: string, key?: string): void {
    const name = key === undefined ? where : `${where}.${key}`;
    const id = `${kind}:${name}`;
    const seen = this.#entries.get(id);
    if (seen) {
      seen.count++;
      return;
    }
    const entry: DriftEntry = { kind, name, count: 1, agyVersion: this.#version() };
    this.#entries.set(id, entry);
    this.#list.push(entry);
    const what = kind === 'field' ? 'a field' : kind === 'event' ? 'an event' : `a ${kind.replace('_', ' ')}`;
    try {
      this.#logger.warn(
        `agy ${entry.agyVersion ?? '(version unknown)'} writes ${what} this SDK does not know: ${name}`,
        { drift: kind, name },
      );
    } catch {
      // A logger that throws has nowhere left to report to; the session goes on.
    }
  }
}
