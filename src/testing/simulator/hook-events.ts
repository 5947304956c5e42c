/**
 * What each hook event means to a turn (docs/reference/hooks.md#hook-payloads, docs/reference/hooks.md#pretooluse-answers). Every hook of an event runs, one at a time, in discovery order; their input is camelCase JSON
 * with the fields real agy 1.3.0 sends (agy-real/hooks-anti-samcheonpo-agy-1.3.0/*.json), and no others:
 *
 * - common: `conversationId`, `transcriptPath` (`…/.system_generated/logs/transcript_full.jsonl`),
 *   `workspacePaths`, `artifactDirectoryPath`, `modelName` (paths under
 *   `$HOME/.gemini/antigravity-cli/brain/<conv>`, named but never created). No `hookEventName`: a hook knows
 *   its event only from how it was registered;
 * - PreToolUse / PostToolUse: `stepIdx` and `toolCall: {name, args}`, the args with agy's own `toolAction`
 *   and `toolSummary` added (and `Cwd`, `WaitMsBeforeAsync` for `run_command` when the model gave none);
 *   PostToolUse adds only `error` (`""` on success; real agy sends no tool output);
 * - PreInvocation / PostInvocation: `invocationNum` (0 for the turn's first model call), `initialNumSteps`;
 * - Stop: `terminationReason: "NO_TOOL_CALL"`, `error: ""`, `executionNum` (this process's turns before this
 *   one), `fullyIdle: true`.
 *
 * A hook that fails (cannot start, times out, exits non-zero) is reported on stderr as a warning.
 */
import { join } from 'node:path';
import type { Conversation } from './conversation.js';
import type { Emitter } from './emitter.js';
import { stepEnvelope } from './envelopes.js';
import type { HookCommand, HookEvent } from './hook-config.js';
import { type HookRun, runHook } from './hook-runner.js';
import type { ToolOutcome } from './mcp-hub.js';
import type { AgyProfile } from './profile.js';
import type { SimRuntime } from './runtime.js';
import type { TurnContext } from './turn-context.js';

/** How many times Stop hooks may make a turn go on (`{"decision":"continue"}`) before it ends anyway. */
export const MAX_STOP_CONTINUATIONS = 3;

type Obj = Record<string, unknown>;

function isObj(value: unknown): value is Obj {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The fields every hook input carries (real agy sends no event name). */
export function hookInput(runtime: SimRuntime, conversationId: string): Obj {
  const brain = join(runtime.config.home, '.gemini', 'antigravity-cli', 'brain', conversationId);
  return {
    artifactDirectoryPath: brain,
    conversationId,
    modelName: runtime.modelName,
    transcriptPath: join(brain, '.system_generated', 'logs', 'transcript_full.jsonl'),
    workspacePaths: runtime.config.workspaces,
  };
}

/** What agy adds to a tool call's args in hook payloads (its UI strings, and run_command's defaults). */
function payloadArgs(runtime: SimRuntime, name: string, args: Obj): Obj {
  const command = typeof args.CommandLine === 'string' ? args.CommandLine : undefined;
  const added: Obj =
    name === 'run_command'
      ? {
          Cwd: runtime.config.workspaces[0] ?? process.cwd(),
          WaitMsBeforeAsync: 5000,
          toolAction: `Running ${command ?? ''}`.trim(),
          toolSummary: `Run ${command ?? ''}`.trim(),
        }
      : { toolAction: `Running ${name}`, toolSummary: `Run ${name}` };
  return { ...added, ...args };
}

/** Turns of this process that reached their Stop hooks, per conversation: Stop's `executionNum`. */
const executions = new WeakMap<Conversation, { turn: TurnContext; count: number }>();

function executionNum(ctx: TurnContext): number {
  const seen = executions.get(ctx.conv);
  if (seen === undefined) {
    executions.set(ctx.conv, { turn: ctx, count: 0 });
    return 0;
  }
  if (seen.turn !== ctx) {
    seen.turn = ctx;
    seen.count++;
  }
  return seen.count;
}

interface HookCall {
  runtime: SimRuntime;
  emitter: Emitter;
  conversationId: string;
  signal?: AbortSignal | undefined;
}

/** Runs one hook, warning on stderr when it fails. */
async function run(call: HookCall, event: HookEvent, hook: HookCommand, input: Obj): Promise<HookRun> {
  const result = await runHook(hook, input, {
    cwd: call.runtime.hookCwd,
    conversationId: call.conversationId,
    signal: call.signal,
    exec: call.runtime.hookExec,
  });
  if (result.failure !== undefined) {
    await call.emitter.stderr(
      `warning: ${event} hook ${hook.command} (${hook.source}) failed: ${result.failure}`,
    );
  }
  return result;
}

/** The hook's stdout as a JSON object, or `undefined` when it printed nothing usable. */
function outputObject(result: HookRun): Obj | undefined {
  if (result.failure !== undefined) return undefined;
  try {
    const value: unknown = JSON.parse(result.stdout);
    return isObj(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

function turnCall(ctx: TurnContext): HookCall {
  return { runtime: ctx.runtime, emitter: ctx.emitter, conversationId: ctx.conv.id, signal: ctx.signal };
}

/** The PreToolUse verdict on a tool call. */
export interface ToolGate {
  /**
   * `ask` means "normal policy" (agy's own permission check): the tool runs only in `always-proceed` mode,
   * headless agy cannot prompt.
   */
  verdict: 'allow' | 'deny' | 'ask';
  /** Why it was denied (or asked). */
  reason: string;
  /** The arguments to run with, `overwrite`s merged in. */
  args: Record<string, unknown>;
}

/** One hook's reading: the verdict, why, and the args it overwrites. */
export interface HookDecision {
  /** Run, ask agy's own check, or block. */
  verdict: ToolGate['verdict'];
  /** Why (empty when it allows). */
  reason: string;
  /** The arguments it overwrites. */
  overwrite?: Obj | undefined;
}

/**
 * One PreToolUse hook's answer, read as the imitated build reads it (`AgyProfile.preToolUseAnswers`;
 * docs/reference/hooks.md#pretooluse-answers). Also how a cassette replay decides on a recorded call
 * (`cassette/replay-gate.ts`), so live and replay agree.
 */
export function decidePreToolUse(
  result: HookRun,
  answers: AgyProfile['preToolUseAnswers'] = '1.2.3',
): HookDecision {
  if (result.failure !== undefined) return { verdict: 'deny', reason: `hook ${result.failure}` };
  // 1.3.3: printing nothing leaves the call to agy's own flow (docs/reference/hooks.md#pretooluse-answers-on-133).
  if (result.stdout.trim() === '') return { verdict: answers === '1.3.3' ? 'ask' : 'allow', reason: '' };
  let value: unknown;
  try {
    value = JSON.parse(result.stdout);
  } catch {
    return { verdict: 'deny', reason: 'hook output is not valid JSON' };
  }
  if (!isObj(value)) return { verdict: 'deny', reason: 'hook output is not a JSON object' };
  return answers === '1.3.3' ? decide133(value) : decide123(value);
}

/** The 1.2.3 table (docs/reference/hooks.md#pretooluse-answers). */
function decide123(value: Obj): HookDecision {
  const overwrite = isObj(value.overwrite) ? value.overwrite : undefined;
  const reason = typeof value.reason === 'string' ? value.reason : '';
  const withOverwrite = overwrite === undefined ? {} : { overwrite };
  switch (value.decision) {
    case 'allow':
      return { verdict: 'allow', reason, ...withOverwrite };
    case 'ask':
    case 'force_ask':
      return { verdict: 'ask', reason, ...withOverwrite };
    case 'deny':
      return { verdict: 'deny', reason: reason || 'denied by hook' };
    case undefined:
      // Deprecated aliases; an object with neither (`{}`) is a denial on 1.2.3.
      if (value.allow_tool === true) return { verdict: 'allow', reason, ...withOverwrite };
      if (typeof value.deny_reason === 'string')
        return { verdict: 'deny', reason: value.deny_reason || 'denied by hook' };
      return { verdict: 'deny', reason: 'hook gave no decision' };
    default:
      return { verdict: 'deny', reason: `hook gave an unknown decision ${JSON.stringify(value.decision)}` };
  }
}

/**
 * The 1.3.3 probe (docs/reference/hooks.md#pretooluse-answers-on-133): `deny` blocks; `allow`, `ask` and
 * `permissionOverrides` approve nothing (agy's own permission check decides); an object without a decision
 * (`{}`) runs the tool without agy's prompt. Not measured, so read as no kinder than the probe: an unknown
 * decision denies, and `overwrite` is not applied.
 */
function decide133(value: Obj): HookDecision {
  const reason = typeof value.reason === 'string' ? value.reason : '';
  switch (value.decision) {
    case 'deny':
      return { verdict: 'deny', reason: reason || 'denied by hook' };
    case 'allow':
    case 'ask':
    case 'force_ask':
      return { verdict: 'ask', reason };
    case undefined:
      if (value.permissionOverrides !== undefined) return { verdict: 'ask', reason };
      if (typeof value.deny_reason === 'string')
        return { verdict: 'deny', reason: value.deny_reason || 'denied by hook' };
      return { verdict: 'allow', reason };
    default:
      return { verdict: 'deny', reason: `hook gave an unknown decision ${JSON.stringify(value.decision)}` };
  }
}

/**
 * Runs the PreToolUse hooks matching `name`. The first denial wins at once; `overwrite`s shallow-merge into
 * the arguments, each later hook seeing the merged ones; an `ask` from any hook makes the verdict `ask`.
 */
export async function preToolUse(
  ctx: TurnContext,
  name: string,
  args: Record<string, unknown>,
  stepIdx: number,
): Promise<ToolGate> {
  let current = args;
  let ask: string | undefined;
  for (const hook of ctx.runtime.hooksFor('PreToolUse', name)) {
    const input = {
      ...hookInput(ctx.runtime, ctx.conv.id),
      stepIdx,
      toolCall: { name, args: payloadArgs(ctx.runtime, name, current) },
    };
    const decision = decidePreToolUse(
      await run(turnCall(ctx), 'PreToolUse', hook, input),
      ctx.profile.preToolUseAnswers,
    );
    if (decision.verdict === 'deny') return { verdict: 'deny', reason: decision.reason, args: current };
    if (decision.overwrite !== undefined) current = { ...current, ...decision.overwrite };
    if (decision.verdict === 'ask') ask ??= decision.reason;
  }
  return ask === undefined
    ? { verdict: 'allow', reason: '', args: current }
    : { verdict: 'ask', reason: ask, args: current };
}

/** Runs the PostToolUse hooks matching `name` after the tool ran; their output is ignored. */
export async function postToolUse(
  ctx: TurnContext,
  name: string,
  args: Record<string, unknown>,
  stepIdx: number,
  outcome: ToolOutcome,
): Promise<void> {
  for (const hook of ctx.runtime.hooksFor('PostToolUse', name)) {
    // Real agy sends `""` here even for a command that exited non-zero; only a tool that could not run at
    // all has something to report.
    const input: Obj = {
      ...hookInput(ctx.runtime, ctx.conv.id),
      error: 'error' in outcome ? outcome.error.message : '',
      stepIdx,
      toolCall: { name, args: payloadArgs(ctx.runtime, name, args) },
    };
    await run(turnCall(ctx), 'PostToolUse', hook, input);
  }
}

/**
 * Runs the PreInvocation or PostInvocation hooks around one model call. `injectSteps` in their output take
 * effect at once: `{"userMessage":"…"}` becomes a DONE `user_input` step carrying `user_input: {text}` (and
 * is remembered in `ctx.injected`), `{"systemMessage":{"systemMessage":"…"}}` a `system_message` step;
 * `ephemeralMessage` (never shown) and `toolCall` (not simulated) are skipped.
 */
export async function invocationHooks(
  ctx: TurnContext,
  event: 'PreInvocation' | 'PostInvocation',
  invocationNum: number,
): Promise<void> {
  for (const hook of ctx.runtime.hooksFor(event)) {
    const input = {
      ...hookInput(ctx.runtime, ctx.conv.id),
      invocationNum,
      initialNumSteps: ctx.initialNumSteps,
    };
    const output = outputObject(await run(turnCall(ctx), event, hook, input));
    if (output === undefined || !Array.isArray(output.injectSteps)) continue;
    for (const inject of output.injectSteps) await injectStep(ctx, inject);
  }
}

async function injectStep(ctx: TurnContext, inject: unknown): Promise<void> {
  if (!isObj(inject)) return;
  const { userMessage, systemMessage } = inject;
  if (typeof userMessage === 'string') {
    ctx.injected.push(userMessage);
    await ctx.emitter.line(
      stepEnvelope(ctx.conv.id, ctx.conv.nextStep(), {
        state: 'DONE',
        step_type: 'user_input',
        user_input: { text: userMessage },
      }),
    );
    return;
  }
  const text = isObj(systemMessage) ? systemMessage.systemMessage : systemMessage;
  if (typeof text === 'string') {
    await ctx.emitter.line(
      stepEnvelope(ctx.conv.id, ctx.conv.nextStep(), {
        state: 'DONE',
        step_type: 'system_message',
        text_delta: text,
      }),
    );
  }
}

/**
 * Runs the Stop hooks as the turn is about to end. Returns the reason of the first
 * `{"decision":"continue","reason":R}` (R non-empty), or `undefined` to let the turn stop.
 */
export async function stopHooks(ctx: TurnContext): Promise<string | undefined> {
  let reason: string | undefined;
  const hooks = ctx.runtime.hooksFor('Stop');
  const execution = hooks.length > 0 ? executionNum(ctx) : 0;
  for (const hook of hooks) {
    const input = {
      ...hookInput(ctx.runtime, ctx.conv.id),
      error: '',
      executionNum: execution,
      fullyIdle: true,
      terminationReason: 'NO_TOOL_CALL',
    };
    const output = outputObject(await run(turnCall(ctx), 'Stop', hook, input));
    if (
      reason === undefined &&
      output?.decision === 'continue' &&
      typeof output.reason === 'string' &&
      output.reason
    ) {
      reason = output.reason;
    }
  }
  return reason;
}

/** Runs the SessionStart hooks once, after `init`; their output is ignored. */
export async function sessionStartHooks(
  runtime: SimRuntime,
  conv: Conversation,
  emitter: Emitter,
): Promise<void> {
  for (const hook of runtime.hooksFor('SessionStart')) {
    const input = hookInput(runtime, conv.id);
    await run({ runtime, emitter, conversationId: conv.id }, 'SessionStart', hook, input);
  }
}
