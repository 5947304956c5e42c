/**
 * HookRunner: registers hooks and dispatches lifecycle events to them, with the Python SDK's semantics:
 * - preTurn: hooks run in order; the first deny stops the turn;
 * - preToolCall: hooks chain; each sees the args as modified by the previous ones (shallow merge); the first
 *   deny wins;
 * - decide hooks fail closed: a throw or an invalid return is a deny whose message names the hook;
 * - inspect hooks: a throw is logged and the remaining hooks still run;
 * - transform hooks: the first non-null/undefined value wins; a throw is logged and passes;
 * - stop: the first `continue` (with a non-empty reason) wins; anything else lets the agent stop.
 * Hooks of one kind run sequentially, in registration order.
 */

import type { ContentPart } from '../content/content.js';
import { consoleLogger, describeError, type Logger } from '../logger.js';
import type { ToolCallDecision } from '../model/tool-call.js';
import type { DeniedBy } from '../model/turn-result.js';
import { isPlainObject, mergeToolArgs, setOwn, withArgs } from './args.js';
import type { OperationContext, TurnContext } from './context.js';
import { SessionContext } from './context.js';
import type { Hook } from './kinds.js';
import {
  type CompactionEvent,
  HOOK_KINDS,
  type HookKind,
  type HookToolResult,
  type InteractionRequest,
  type InteractionResponse,
  type StopDecision,
  type StopEvent,
  type ToolArgs,
  type ToolErrorEvent,
  type ToolInvocation,
} from './types.js';

/** Options for {@link HookRunner}. */
export interface HookRunnerOptions {
  /** Hooks to register up front. */
  hooks?: Iterable<Hook>;
  /** Where hook failures are reported. Defaults to {@link consoleLogger}. */
  logger?: Logger;
  /** agy's conversation id, when already known (e.g. when resuming). */
  conversationId?: string;
}

/** Result of {@link HookRunner.dispatchPreTurn}. */
export interface PreTurnOutcome {
  /** Whether the turn may start. */
  allow: boolean;
  /** Why it was denied. */
  message?: string;
  /** The hook that denied. */
  hook?: string;
  /** The turn's context; pass it to the turn's other dispatches. */
  turn: TurnContext;
}

/** Result of {@link HookRunner.dispatchPreToolCall}. */
export interface PreToolCallOutcome {
  /** Whether the tool may run. */
  allow: boolean;
  /** Why it was denied; this is what the model and the user see. */
  message?: string;
  /** The hook that denied. */
  hook?: string;
  /** With a deny: who decided (the hook, or the policy or person it decided for). */
  deniedBy?: DeniedBy;
  /**
   * All argument changes made by the hooks, merged (agy's keys); absent when none. Send it as agy's
   * PreToolUse `overwrite`. Only set when allowed.
   */
  modifiedArgs?: ToolArgs;
  /** The call as the last hook saw it (args with all modifications applied). */
  call: ToolInvocation;
  /** The operation's context; pass it to the call's post/error dispatches. */
  operation: OperationContext;
}

/** Result of {@link HookRunner.dispatchInteraction}. */
export interface InteractionOutcome {
  /** The answer, or `undefined` when no hook answered (the host falls back to its default). */
  response?: InteractionResponse;
  /** The hook that answered. */
  hook?: string;
  /** The interaction's context. */
  operation: OperationContext;
}

/** Result of {@link HookRunner.dispatchStop}: the decision and, for `continue`, the hook that made it. */
export type StopOutcome = StopDecision & {
  /** The hook that asked to continue. */
  hook?: string;
};

type HookOf<K extends HookKind> = Extract<Hook, { kind: K }>;
type Settled<T> = { ok: true; value: T } | { ok: false; error: unknown };

/** Registers hooks and dispatches events to them. */
export class HookRunner {
  /** The session-wide context; every turn's context descends from it. */
  readonly session: SessionContext;
  readonly #logger: Logger;
  readonly #hooks = new Map<HookKind, Hook[]>();
  #turns = 0;

  constructor(options: HookRunnerOptions = {}) {
    this.#logger = options.logger ?? consoleLogger;
    this.session = new SessionContext(
      options.conversationId === undefined ? {} : { conversationId: options.conversationId },
    );
    for (const hook of options.hooks ?? []) this.register(hook);
  }

  /** Registers hooks; their kind decides which event they handle. Throws `TypeError` for a non-hook. */
  register(...hooks: Hook[]): this {
    for (const hook of hooks) {
      const kind: unknown = (hook as { kind?: unknown } | null)?.kind;
      if (!HOOK_KINDS.includes(kind as HookKind) || typeof hook.run !== 'function') {
        throw new TypeError(
          `Not a hook: expected an object with a known 'kind' (${HOOK_KINDS.join(', ')}) and a run() method`,
        );
      }
      const list = this.#hooks.get(hook.kind) ?? [];
      list.push(hook);
      this.#hooks.set(hook.kind, list);
    }
    return this;
  }

  /** Removes one registration of `hook`; returns whether it was registered. Later dispatches no longer see it. */
  unregister(hook: Hook): boolean {
    const list = this.#hooks.get(hook?.kind);
    const index = list?.indexOf(hook) ?? -1;
    if (!list || index === -1) return false;
    list.splice(index, 1);
    return true;
  }

  /** The kinds that have at least one hook, in lifecycle order. Only these need installing in agy. */
  registeredKinds(): HookKind[] {
    return HOOK_KINDS.filter((kind) => (this.#hooks.get(kind)?.length ?? 0) > 0);
  }

  /** Whether any hook of `kind` is registered. */
  has(kind: HookKind): boolean {
    return (this.#hooks.get(kind)?.length ?? 0) > 0;
  }

  /** The hooks of `kind`, in registration order. */
  hooksOf<K extends HookKind>(kind: K): readonly HookOf<K>[] {
    return [...((this.#hooks.get(kind) ?? []) as HookOf<K>[])];
  }

  /** Records agy's conversation id once known; contexts read it from the session. */
  setConversationId(id: string | undefined): void {
    this.session.setConversationId(id);
  }

  /**
   * Opens the next turn's context (turns are numbered from 1), for a prompt of `prompt` (its parts).
   * `dispatchPreTurn` does this for you.
   */
  beginTurn(prompt: readonly ContentPart[] = []): TurnContext {
    this.#turns += 1;
    return this.session.startTurn(this.#turns, prompt);
  }

  /** Runs `onSessionStart` hooks. */
  async dispatchSessionStart(): Promise<void> {
    const info = { conversationId: this.session.conversationId };
    await this.#inspect('onSessionStart', (hook) => hook.run(info, this.session));
  }

  /** Runs `onSessionEnd` hooks. */
  async dispatchSessionEnd(): Promise<void> {
    const info = { conversationId: this.session.conversationId };
    await this.#inspect('onSessionEnd', (hook) => hook.run(info, this.session));
  }

  /** Runs `preTurn` hooks on the prompt; the first deny stops. Opens a new turn unless one is given. */
  async dispatchPreTurn(prompt: string, turn: TurnContext = this.beginTurn()): Promise<PreTurnOutcome> {
    for (const hook of this.hooksOf('preTurn')) {
      const settled = await settle(() => hook.run(prompt, turn));
      const decision = this.#decision(hook, settled);
      if (!decision.allow) return { ...decision, hook: hook.name, turn };
    }
    return { allow: true, turn };
  }

  /** Runs `postTurn` hooks on the response text. */
  async dispatchPostTurn(turn: TurnContext, responseText: string): Promise<void> {
    await this.#inspect('postTurn', (hook) => hook.run(responseText, turn));
  }

  /**
   * Runs `preToolCall` hooks as a chain: each hook's `modifiedArgs` are shallow-merged into the args the
   * next hook sees and into the outcome. The first deny (or failing hook) stops the chain. Hooks get copies
   * of the call: mutating `call.args` in place has no effect.
   */
  async dispatchPreToolCall(turn: TurnContext, call: ToolInvocation): Promise<PreToolCallOutcome> {
    const operation = turn.startOperation(call.id);
    let current = call;
    let modified = false;
    for (const hook of this.hooksOf('preToolCall')) {
      // Each hook gets its own copy: only `modifiedArgs` changes the call, never in-place mutation.
      const view = withArgs(current, { ...current.args });
      const settled = await settle(() => hook.run(view, operation));
      const decision = this.#decision(hook, settled);
      if (!decision.allow) {
        const deniedBy = delegatedDenier(settled) ?? { kind: 'hook', name: hook.name };
        return { ...decision, hook: hook.name, deniedBy, call: current, operation };
      }
      // `args` is the one decision's name for the same change (a hook may return a `ToolCallDecision` as is).
      const answer: unknown = settled.ok ? settled.value : undefined;
      const changes = isPlainObject(answer) ? (answer.modifiedArgs ?? answer.args) : undefined;
      if (changes === undefined) continue;
      if (!isPlainObject(changes)) {
        const message = `Hook '${hook.name}' returned invalid modifiedArgs (expected a plain object)`;
        this.#logger.error(`preToolCall: ${message}; denying`, changes);
        return {
          allow: false,
          message,
          hook: hook.name,
          deniedBy: { kind: 'hook', name: hook.name },
          call: current,
          operation,
        };
      }
      current = withArgs(current, mergeToolArgs(current.args, changes));
      modified = true;
    }
    if (!modified) return { allow: true, call: current, operation };
    // The delta against the original args, in the keys actually written: agy's `overwrite` as is.
    const delta: ToolArgs = {};
    for (const [key, value] of Object.entries(current.args)) {
      if (!Object.hasOwn(call.args, key) || call.args[key] !== value) setOwn(delta, key, value);
    }
    return { allow: true, modifiedArgs: delta, call: current, operation };
  }

  /** Runs `postToolCall` hooks. Pass the operation from `dispatchPreToolCall` (or `turn.startOperation(id)`). */
  async dispatchPostToolCall(operation: OperationContext, result: HookToolResult): Promise<void> {
    await this.#inspect('postToolCall', (hook) => hook.run(result, operation));
  }

  /**
   * Runs `onToolError` hooks; the first string returned replaces the error message.
   * @returns The replacement message, or `undefined` to keep agy's.
   */
  async dispatchToolError(operation: OperationContext, event: ToolErrorEvent): Promise<string | undefined> {
    for (const hook of this.hooksOf('onToolError')) {
      const settled = await settle(() => hook.run(event, operation));
      const value = this.#transformed(hook, settled);
      if (value === undefined) continue;
      if (typeof value === 'string') return value;
      this.#logger.warn(`onToolError hook '${hook.name}' returned a non-string; ignored`, value);
    }
    return undefined;
  }

  /** Runs `onInteraction` hooks; the first answer whose kind matches the request wins. */
  async dispatchInteraction(turn: TurnContext, request: InteractionRequest): Promise<InteractionOutcome> {
    const operation = turn.startOperation(request.kind === 'confirmation' ? request.call?.id : undefined);
    for (const hook of this.hooksOf('onInteraction')) {
      const settled = await settle(() => hook.run(request, operation));
      const value = this.#transformed(hook, settled);
      if (value === undefined) continue;
      if (isPlainObject(value) && value.kind === request.kind)
        return { response: value as InteractionResponse, hook: hook.name, operation };
      this.#logger.warn(
        `onInteraction hook '${hook.name}' returned an answer that does not match a '${request.kind}' request; ignored`,
        value,
      );
    }
    return { operation };
  }

  /** Runs `onCompaction` hooks. */
  async dispatchCompaction(turn: TurnContext, event: CompactionEvent): Promise<void> {
    await this.#inspect('onCompaction', (hook) => hook.run(event, turn));
  }

  /**
   * Runs `stop` hooks; the first `continue` with a non-empty reason wins. A hook that throws, returns
   * something invalid, or asks to continue without a reason is logged and counts as "allow stop".
   */
  async dispatchStop(turn: TurnContext, event: StopEvent): Promise<StopOutcome> {
    for (const hook of this.hooksOf('stop')) {
      const settled = await settle(() => hook.run(event, turn));
      if (!settled.ok) {
        this.#logger.error(`stop hook '${hook.name}' threw; treating it as allow_stop`, settled.error);
        continue;
      }
      const value: unknown = settled.value;
      if (value === undefined || value === null) continue;
      if (isPlainObject(value) && value.decision === 'allow_stop') continue;
      if (isPlainObject(value) && value.decision === 'continue') {
        if (typeof value.reason === 'string' && value.reason.trim() !== '') {
          return { decision: 'continue', reason: value.reason, hook: hook.name };
        }
        this.#logger.error(
          `stop hook '${hook.name}' returned 'continue' without a reason (a reason is required); treating it as allow_stop`,
        );
        continue;
      }
      this.#logger.warn(
        `stop hook '${hook.name}' returned an invalid decision; treating it as allow_stop`,
        value,
      );
    }
    return { decision: 'allow_stop' };
  }

  async #inspect<K extends HookKind>(kind: K, run: (hook: HookOf<K>) => unknown): Promise<void> {
    for (const hook of this.hooksOf(kind)) {
      const settled = await settle(() => run(hook));
      if (!settled.ok) this.#logger.error(`${kind} hook '${hook.name}' threw; continuing`, settled.error);
    }
  }

  // Fail closed: only an explicit allow passes.
  #decision(hook: Hook, settled: Settled<unknown>): { allow: boolean; message?: string } {
    if (!settled.ok) {
      this.#logger.error(`${hook.kind} hook '${hook.name}' threw; denying`, settled.error);
      return { allow: false, message: `Hook '${hook.name}' failed: ${describeError(settled.error)}` };
    }
    const value = settled.value;
    if (typeof value === 'boolean') {
      return value ? { allow: true } : { allow: false, message: `Denied by hook '${hook.name}'` };
    }
    if (isPlainObject(value) && typeof value.allow === 'boolean') {
      if (value.allow) return { allow: true };
      // `reason` is the one decision's name for the message (a hook may return a `ToolCallDecision` as is).
      const text = value.message ?? value.reason;
      const message = typeof text === 'string' && text !== '' ? text : undefined;
      return { allow: false, message: message ?? `Denied by hook '${hook.name}'` };
    }
    this.#logger.error(`${hook.kind} hook '${hook.name}' returned no valid decision; denying`, value);
    return { allow: false, message: `Hook '${hook.name}' returned no valid decision` };
  }

  #transformed(hook: Hook, settled: Settled<unknown>): unknown {
    if (settled.ok) return settled.value ?? undefined;
    this.#logger.error(`${hook.kind} hook '${hook.name}' threw; passing to the next hook`, settled.error);
    return undefined;
  }
}

/**
 * The hooks' outcome as the one {@link ToolCallDecision} every gate answers with: the one place where what
 * `preToolCall` hooks return (booleans, `{ allow, message, modifiedArgs }`, or a decision) becomes the decision.
 * A deny names who decided (the hook, or the policy or person it decided for); an allow carries the whole
 * arguments as the hooks left them, when any hook changed them.
 */
export function toolCallDecision(outcome: PreToolCallOutcome): ToolCallDecision {
  if (!outcome.allow) {
    const hook = outcome.hook ?? 'preToolCall';
    return {
      allow: false,
      reason: outcome.message ?? `denied by hook '${hook}'`,
      deniedBy: outcome.deniedBy ?? { kind: 'hook', name: hook },
    };
  }
  return outcome.modifiedArgs ? { allow: true, args: outcome.call.args } : { allow: true };
}

/**
 * The policy or person a `preToolCall` hook's deny names (`ToolCallDecision.deniedBy`), when well formed; any
 * other kind stays the hook's own denial, since a hook can only speak for what it asked.
 */
function delegatedDenier(settled: Settled<unknown>): DeniedBy | undefined {
  if (!settled.ok || !isPlainObject(settled.value)) return undefined;
  const by: unknown = settled.value.deniedBy;
  if (!isPlainObject(by)) return undefined;
  if (by.kind === 'policy' && typeof by.name === 'string' && by.name !== '')
    return { kind: 'policy', name: by.name };
  if (by.kind === 'user' && typeof by.policy === 'string' && by.policy !== '')
    return { kind: 'user', policy: by.policy };
  return undefined;
}

/** Runs `fn`, turning sync throws and rejections into a value. */
async function settle<T>(fn: () => T): Promise<Settled<Awaited<T>>> {
  try {
    return { ok: true, value: await fn() };
  } catch (error) {
    return { ok: false, error };
  }
}
