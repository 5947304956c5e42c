/**
 * A cassette as a timeline model: turns (one per stdin user line) and their steps as the SDK reads them
 * (the normalizer and the turn tracker the transport uses, so what the page shows is what a program saw),
 * with the deciding policy or hook of each denial (the recorded hook answers), usage and cost per step and
 * per turn, durations and each turn's status (the fail-closed classifier). Input of `html.ts`.
 */

import type {
  Cassette,
  CassetteRecord,
  HookRecord,
  StdinRecord,
  StdoutRecord,
} from '../../cassette/format.js';
import {
  classifyTurn,
  deniedFromWire,
  isBadLine,
  parseEvent,
  TurnTracker,
  usageFromWire,
} from '../../connection/agy/reader.js';
import { costAt, priceOf } from '../../model/pricing.js';
import type { Step, Usage } from '../../model/step.js';
import type { TurnStatus } from '../../model/turn-result.js';

/** A tool call on the timeline. */
export interface TimelineTool {
  /** The tool's name (an MCP tool's own name). */
  name: string;
  /** Its arguments. */
  args: unknown;
  /** Its output, when it finished. */
  output: unknown;
  /** Its error message, when it failed. */
  error?: string | undefined;
  /** The MCP server, for an MCP tool. */
  mcpServer?: string | undefined;
}

/** Who denied a call, and why. */
export interface TimelineDenial {
  /** `policy <name>`, `hook <name>`, `PreToolUse hook` or `agy`. */
  by: string;
  /** The reason given. */
  reason: string;
}

/** How a process ended. */
export interface TimelineExit {
  /** The exit code, or `null` after a signal. */
  code: number | null;
  /** The signal that ended it, if any. */
  signal: string | null;
}

/** A process of the session. */
export interface TimelineProcess {
  /** When it started, ms from the recording's start. */
  t: number;
  /** Its arguments. */
  args: string[];
  /** How it ended, when it did. */
  exit?: TimelineExit | undefined;
}

/** One step of a turn, as shown. */
export interface TimelineStep {
  /** agy's step index (-1 for a slash command's result). */
  index: number;
  /** The step type (`agent_response`, `tool`, `system_message`, …). */
  type: string;
  /** The last state seen (`DONE`, `ERROR`, `ACTIVE`). */
  state: string;
  /** Offset of its first update, ms from the recording's start. */
  t: number;
  /** Text the step streamed (model text, or a notice's message). */
  text: string;
  /** Thoughts the step streamed (ACP agents; agy streams none). */
  thoughts: string;
  /** The tool call, if the step is one. */
  tool?: TimelineTool | undefined;
  /** Why it was denied, and who decided (the hook's or policy's reason), when it was. */
  denial?: TimelineDenial | undefined;
  /** The subagent's conversation, for a subagent's step. */
  subagent?: string | undefined;
  /** The step's usage, and its cost in USD when the model is priced. */
  usage?: Usage | undefined;
  /** Cost of the step's usage, when the model is priced. */
  costUsd?: number | null | undefined;
  /** agy's `duration_seconds`. */
  durationSeconds?: number | undefined;
}

/** One turn. */
export interface TimelineTurn {
  /** The prompt text. */
  prompt: string;
  /** How the turn ended (the SDK's fail-closed status). */
  status: TurnStatus;
  /** Why, when it did not succeed. */
  message: string;
  /** Offsets of the user line and of the turn's end. */
  startT: number;
  /** Offset of the turn's `result` (or of the last record seen). */
  endT: number;
  /** The turn's steps, in order. */
  steps: TimelineStep[];
  /** The turn's usage (sum of its steps), and its cost. */
  usage: Usage | null;
  /** Cost of the turn's usage, when the model is priced. */
  costUsd: number | null;
  /** agy's `result.duration_seconds`. */
  agyDurationSeconds?: number | undefined;
  /** stderr lines written during the turn. */
  stderr: string[];
}

/** A whole session. */
export interface Timeline {
  /** The cassette's header fields worth showing. */
  agyVersion: string | null;
  /** The model agy reported (init), if any. */
  model: string | undefined;
  /** Where the cassette came from. */
  source: string | undefined;
  /** Every turn. */
  turns: TimelineTurn[];
  /** Process starts and exits, for the header. */
  processes: TimelineProcess[];
}

/** The text of a user line (`{"message":{"content":[{"text":…}]}}`); any other line is shown as it is. */
function promptOf(line: string): string {
  let v: unknown;
  try {
    v = JSON.parse(line);
  } catch {
    return line;
  }
  const content = (v as { message?: { content?: unknown } } | null)?.message?.content;
  if (!Array.isArray(content)) return line;
  return content
    .map((c) =>
      typeof (c as { text?: unknown } | null)?.text === 'string' ? (c as { text: string }).text : '',
    )
    .join('\n');
}

/** The reason and decider of a denying hook answer (`{decision:'deny', reason}`), if it denied. */
function denialOf(answer: unknown): { by: string; reason: string } | undefined {
  if (typeof answer !== 'object' || answer === null) return undefined;
  const a = answer as { decision?: unknown; reason?: unknown };
  if (a.decision !== 'deny' && a.decision !== 'block') return undefined;
  const reason = typeof a.reason === 'string' ? a.reason : 'denied';
  const policy = /policy '([^']+)'/.exec(reason)?.[1];
  const hook = /hook '([^']+)'/.exec(reason)?.[1];
  return { by: policy ? `policy ${policy}` : hook ? `hook ${hook}` : 'PreToolUse hook', reason };
}

/** Builds the timeline of a cassette. */
export function buildTimeline(cassette: Cassette): Timeline {
  const builder = new TimelineBuilder(cassette);
  for (const record of cassette.records) builder.add(record);
  builder.endTurn(null);
  return builder.timeline;
}

/** An exit as the classifier takes it. */
type TurnExit = { code: number | null; signal: NodeJS.Signals | null };

/**
 * Reads a cassette's records in order into its timeline: a stdin line opens a turn, its `result` (or the next
 * user line, or the process's exit) closes it; the steps go through the transport's own turn tracker.
 */
class TimelineBuilder {
  readonly timeline: Timeline;
  readonly #counted = new Set<string>();
  #conversationId: string | undefined;
  #turn: TimelineTurn | undefined;
  #tracker: TurnTracker | undefined;
  #views = new Map<string, TimelineStep>();
  // The messages already shown per step (agy repeats a notice's message on each update of its step). A set,
  // not a search of the step's text: that grew with every message and made a long cassette quadratic.
  readonly #shown = new WeakMap<TimelineStep, Set<string>>();
  #denials = new Map<number, TimelineDenial>();
  #lastT = 0;
  #result: Record<string, unknown> | null = null;

  constructor(cassette: Cassette) {
    this.timeline = {
      agyVersion: cassette.header.agy.version,
      model: undefined,
      source: cassette.header.source,
      turns: [],
      processes: [],
    };
  }

  /** Takes the next record. */
  add(r: CassetteRecord): void {
    this.#lastT = r.t;
    switch (r.type) {
      case 'spawn':
        this.timeline.processes.push({ t: r.t, args: r.args });
        break;
      case 'exit': {
        const p = this.timeline.processes.at(-1);
        if (p) p.exit = { code: r.code, signal: r.signal };
        this.endTurn({ code: r.code, signal: r.signal as NodeJS.Signals | null });
        break;
      }
      case 'stdin':
        this.endTurn(null);
        this.#startTurn(r);
        break;
      case 'stderr':
        this.#turn?.stderr.push(r.line);
        this.#tracker?.stderrLines.push(r.line);
        break;
      case 'hook': {
        const d = denialOf(r.answer);
        const idx = (r.request as { stepIdx?: unknown } | null)?.stepIdx;
        if (d && typeof idx === 'number' && (r as HookRecord).event === 'PreToolUse')
          this.#denials.set(idx, d);
        break;
      }
      case 'stdout':
        this.#onStdout(r);
        break;
      default:
        break;
    }
  }

  #startTurn(r: StdinRecord): void {
    this.#turn = {
      prompt: promptOf(r.line),
      status: 'error',
      message: '',
      startT: r.t,
      endT: r.t,
      steps: [],
      usage: null,
      costUsd: null,
      stderr: [],
    };
    this.#tracker = new TurnTracker(this.#counted, () => this.#conversationId);
    this.#views = new Map();
    this.#denials = new Map();
    this.#result = null;
  }

  #onStdout(r: StdoutRecord): void {
    const parsed = parseEvent(r.line);
    if (isBadLine(parsed)) return;
    if (parsed.type === 'init') {
      this.#conversationId = parsed.init.conversationId;
      this.timeline.model ??= parsed.init.model;
    } else if (parsed.type === 'step') this.#onStep(parsed.step, r.t);
    else if (parsed.type === 'result') {
      this.#conversationId = parsed.conversationId ?? this.#conversationId;
      this.#result = parsed.result as Record<string, unknown>;
      this.endTurn(null);
    } else if (parsed.type === 'command_result' && this.#tracker && parsed.command) {
      this.#tracker.command = parsed.command;
      const step = {
        conversationId: this.#conversationId,
        stepIndex: -1,
        state: 'DONE',
        type: 'command',
        command: parsed.command,
        raw: {},
      } as Step;
      this.#onStep(step, r.t);
    }
  }

  /** Closes the open turn, if any: its denials, status (the fail-closed classifier), usage, cost and end. */
  endTurn(exit: TurnExit | null): void {
    const turn = this.#turn;
    const tracker = this.#tracker;
    if (!turn || !tracker) return;
    const wire = this.#result as Parameters<typeof deniedFromWire>[0] | null;
    const deniedActions = wire ? deniedFromWire(wire) : [];
    tracker.applyDeniedActions(deniedActions);
    for (const call of tracker.toolCalls) {
      const view = this.#views.get(`${call.id}`);
      if (view && call.denied && !view.denial)
        view.denial = { by: 'agy', reason: 'denied by agy (denied_actions)' };
    }
    const outcome = classifyTurn({
      result: wire,
      exit,
      stderrLines: tracker.stderrLines,
      deniedActions,
      agentResponseError: tracker.agentResponseError,
      requested: null,
      lineTooLong: false,
      deniedToolSteps: tracker.deniedToolSteps.size,
      command: tracker.command !== undefined,
      finishedModelStep: tracker.finishedModelStep,
      sawStepUsage: tracker.sawStepUsage,
      notices: tracker.notices,
    });
    // SDK-side denials (a policy or hook answered deny) also end a SUCCESS as `denied`.
    const sdkDenied = [...this.#views.values()].some((s) => s.denial && s.denial.by !== 'agy');
    turn.status = outcome.status === 'success' && sdkDenied ? 'denied' : outcome.status;
    turn.message = outcome.message;
    const usage = tracker.stepUsage ?? (wire ? usageFromWire(wire.usage) : null);
    turn.usage = usage;
    turn.costUsd = usage ? costAt(priceOf(this.timeline.model), usage) : null;
    if (typeof wire?.duration_seconds === 'number') turn.agyDurationSeconds = wire.duration_seconds;
    turn.endT = this.#lastT;
    this.timeline.turns.push(turn);
    this.#turn = undefined;
    this.#tracker = undefined;
  }

  /** One step update: into its view (one per tool call, else per conversation and step index). */
  #onStep(step: Step, t: number): void {
    const turn = this.#turn;
    if (!turn || !this.#tracker) return;
    const seen = this.#tracker.onStep(step);
    const key = seen.tool?.id ?? `${seen.conversationId ?? ''}:${seen.stepIndex}`;
    let view = this.#views.get(key);
    if (!view) {
      view = { index: seen.stepIndex, type: seen.type, state: seen.state, t, text: '', thoughts: '' };
      this.#views.set(key, view);
      turn.steps.push(view);
    }
    view.state = seen.state;
    view.type = seen.type;
    if (seen.textDelta && !seen.repeat) view.text += seen.textDelta;
    if (seen.thoughtDelta) view.thoughts += seen.thoughtDelta;
    if (seen.message) {
      const messages = this.#shown.get(view) ?? new Set<string>();
      this.#shown.set(view, messages);
      if (!messages.has(seen.message)) view.text += seen.message;
      messages.add(seen.message);
    }
    if (seen.subagent) view.subagent = seen.conversationId;
    if (seen.tool) {
      view.tool = {
        name: seen.tool.name,
        args: seen.tool.args,
        output: seen.tool.output,
        error: seen.tool.error?.message,
        mcpServer: seen.tool.mcpServer,
      };
      const denial = this.#denials.get(seen.stepIndex);
      if (denial) view.denial = denial;
    }
    if (seen.usage && !seen.repeat) {
      view.usage = seen.usage;
      view.costUsd = costAt(priceOf(this.timeline.model), seen.usage);
    }
    if (seen.durationSeconds !== undefined) view.durationSeconds = seen.durationSeconds;
    if (seen.command) view.text = `/${seen.command.name} ${JSON.stringify(seen.command.data)}`;
  }
}
