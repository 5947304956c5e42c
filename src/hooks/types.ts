/**
 * Data types the hooks see and return. They are transport-neutral: the host builds them from agy's hook
 * payloads (PreToolUse `toolCall:{name,args}`, PostToolUse, Stop) or from stream-json steps, and maps the
 * decisions back (`decision`/`reason`/`overwrite`).
 */
import type { Step, ToolError } from '../model/step.js';
import type { StopEvent } from '../model/stop.js';
import type { AgyHookInfo, ToolArgs, ToolCallDecision, ToolInvocation } from '../model/tool-call.js';
import type { DeniedBy } from '../model/turn-result.js';

/** Every hook kind, in dispatch-lifecycle order. */
export const HOOK_KINDS = [
  'onSessionStart',
  'onSessionEnd',
  'preTurn',
  'postTurn',
  'preToolCall',
  'postToolCall',
  'onToolError',
  'onInteraction',
  'onCompaction',
  'stop',
] as const;

/** A hook kind; also the name of its factory on the `hooks` namespace. */
export type HookKind = (typeof HOOK_KINDS)[number];

export type { AgyHookInfo, StopEvent, ToolArgs, ToolCallDecision, ToolInvocation };

/**
 * A tool call as tool hooks and policies see it.
 * @deprecated Use {@link ToolInvocation} (the same type, under the name the whole SDK uses).
 */
export type HookToolCall = ToolInvocation;

/** What `postToolCall` hooks see once a tool has run. */
export interface HookToolResult {
  /** The call as it was executed (after any `modifiedArgs`). */
  call: ToolInvocation;
  /**
   * The tool's output, when it succeeded and the host has it: the bare value, the same shape as
   * `ToolCall.output`. Real agy (1.3.0) sends no output with PostToolUse, so for built-in tools this is
   * usually absent; read the turn's `toolCalls()` for their output.
   */
  output?: unknown;
  /**
   * The failure, when it failed, as the model saw it: for the agent's own tools an `onToolError` replacement
   * (those hooks run first), else the tool's own error. Absent on success. A call denied before it ran never
   * reaches `postToolCall` (it is in the turn's `deniedActions`).
   */
  error?: ToolError;
}

/** What `onToolError` hooks see. */
export interface ToolErrorEvent {
  /** The call that failed. */
  call: ToolInvocation;
  /** The failure as agy reported it. */
  error: ToolError;
}

/** What session hooks see. */
export interface SessionInfo {
  /** agy's conversation id, once known (agy reports it in its `init` event). */
  conversationId: string | undefined;
}

/** A decision from a decide hook (`preTurn`). `true`/`false` are accepted as shorthands. */
export interface HookDecision {
  /** Whether the operation may proceed. */
  allow: boolean;
  /** Why it was denied; shown to the model and the user. Ignored when allowed. */
  message?: string;
}

/**
 * What a `preToolCall` hook may return besides `true`/`false` (or the one {@link ToolCallDecision}, which it may
 * return as is): the hook runner turns it into a `ToolCallDecision`.
 */
export interface PreToolCallDecision extends HookDecision {
  /**
   * Arguments to change, shallow-merged into the call's args (agy's keys). A camelCase key that is not an arg
   * but is the normalized form of one (e.g. `commandLine` for `CommandLine`) updates that arg.
   * Ignored on deny.
   */
  modifiedArgs?: ToolArgs;
  /**
   * On deny, who decided when the hook decides for someone else: `enforce()` names the policy, or the person its
   * `askUser` asked. Only `policy` and `user` are taken from a hook; absent (or anything else), the hook itself
   * is named (`{ kind: 'hook', name }`). Ignored when allowed.
   */
  deniedBy?: DeniedBy;
}

/** Everything a `preToolCall` hook may return. */
export type PreToolCallAnswer = PreToolCallDecision | ToolCallDecision | boolean;

/** A `stop` hook's answer: let the agent stop, or make it continue with a reason (injected as a message). */
export type StopDecision =
  | {
      /** Let the agent stop. */
      decision: 'allow_stop';
    }
  | {
      /** Make the agent continue. */
      decision: 'continue';
      /** Why it must continue; injected as a message the agent reads. */
      reason: string;
    };

/** One option of a multiple-choice question. */
export interface QuestionOption {
  /** Stable id to answer with. */
  id: string;
  /** Text shown to the user. */
  text: string;
}

/** One question the agent asks. */
export interface Question {
  /** The question text. */
  question: string;
  /** The choices offered (may be empty for a free-form question). */
  options: QuestionOption[];
  /** Whether several options may be selected. */
  multiSelect?: boolean;
}

/** The agent needs the user: a set of questions, or a confirmation of a tool call. */
export type InteractionRequest =
  | {
      /** Questions from the agent's ask-question tool. */
      kind: 'question';
      /** The questions, in order. */
      questions: Question[];
    }
  | {
      /** A request to confirm an action. */
      kind: 'confirmation';
      /** What is to be confirmed, as text for the user. */
      message: string;
      /** The tool call awaiting confirmation, when it is one. */
      call?: ToolInvocation;
    };

/** The answer to one question, in the order of the request's questions. */
export interface QuestionAnswer {
  /** Ids of the chosen options. */
  selectedOptionIds?: string[];
  /** A free-form answer. */
  freeform?: string;
  /** The user skipped the question. */
  skipped?: boolean;
}

/** An `onInteraction` hook's answer; its `kind` must match the request's. */
export type InteractionResponse =
  | {
      /** Answers to a `question` request. */
      kind: 'question';
      /** One answer per question. */
      answers: QuestionAnswer[];
      /** The user dismissed the dialog. */
      cancelled?: boolean;
    }
  | {
      /** Answer to a `confirmation` request. */
      kind: 'confirmation';
      /** Whether the user accepted. */
      accepted: boolean;
    };

/** What `onCompaction` hooks see when agy compacts the context. */
export interface CompactionEvent {
  /** The compaction step's index, when known. */
  stepIndex?: number;
  /** The summary that replaced the compacted history, when agy reports one. */
  summary?: string;
  /** The step that reported the compaction, when it came from the stream. */
  step?: Step;
}

/** A value or a promise of it: hook functions may be sync or async. */
export type MaybePromise<T> = T | Promise<T>;
