/**
 * One scenario action each: the steps agy would stream for it, or the misbehaviour it stands for.
 * Shapes follow agy-cli.md §D.3: `agent_response` streams `text_delta` on ACTIVE updates and ends with a DONE
 * carrying the last delta, `duration_seconds` and `usage`; `tool` steps carry `tool_name` and `tool_info`.
 */
import { spawn } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { delay, throwIfAborted, untilAborted } from './abort.js';
import type { Conversation } from './conversation.js';
import type { Emitter } from './emitter.js';
import { type DeniedAction, roundSeconds, stepEnvelope } from './envelopes.js';
import { invocationHooks } from './hook-events.js';
import type { ToolOutcome } from './mcp-hub.js';
import type { SimRuntime } from './runtime.js';
import type {
  CustomStepAction,
  DenyAction,
  HugeTextAction,
  KillSelfAction,
  McpToolAction,
  ScenarioAction,
  SpawnChildAction,
  TextAction,
  TimestampDeltasAction,
  ToolAction,
} from './scenario.js';
import { actionKind } from './scenario-file.js';
import { displayName, runMcpTool, runTool } from './tool-steps.js';
import { addUsage, completeUsage, deriveUsage, type Usage } from './usage.js';

/** What an action can see and change while a turn runs. */
export interface TurnContext {
  readonly conv: Conversation;
  readonly emitter: Emitter;
  /** Aborted by SIGINT or the print timeout. */
  readonly signal: AbortSignal;
  readonly prompt: string;
  /** Flushes output, saves state and exits the process. */
  readonly exit: (code: number) => Promise<never>;
  /** The text of the latest `agent_response` (partial while it streams): the turn's `response`. */
  lastText: string;
  /** Permissions soft-denied in this turn. */
  readonly denied: DeniedAction[];
  /** The configuration agy loaded (hooks, MCP servers, rules, custom agents). */
  readonly runtime: SimRuntime;
  /** Model calls started so far in this turn: the next call's `invocationNum`. */
  invocations: number;
  /** The conversation's step count once the turn's `user_input` step is out (`initialNumSteps`). */
  initialNumSteps: number;
  /** User messages PreInvocation/PostInvocation hooks injected during this turn, in order. */
  readonly injected: string[];
  /** The outcome of the turn's latest tool step. */
  lastTool: ToolOutcome | undefined;
}

/**
 * Text computed when its model call runs rather than when the turn was scripted: the default script's reply
 * mentions what hooks injected and what an MCP tool returned. Keyed by the (internal) action object.
 */
export const dynamicText = new WeakMap<TextAction, (ctx: TurnContext) => string>();

/** Runs one model call with the PreInvocation hooks before it and the PostInvocation hooks after it. */
async function modelCall(ctx: TurnContext, call: () => Promise<void>): Promise<void> {
  const invocationNum = ctx.invocations++;
  await invocationHooks(ctx, 'PreInvocation', invocationNum);
  throwIfAborted(ctx.signal);
  await call();
  throwIfAborted(ctx.signal);
  await invocationHooks(ctx, 'PostInvocation', invocationNum);
}

/** Runs one action, then checks whether the turn was aborted meanwhile. */
export async function runAction(ctx: TurnContext, action: ScenarioAction): Promise<void> {
  const kind = actionKind(action);
  switch (kind) {
    case 'text':
      await modelCall(ctx, () => runText(ctx, action as TextAction));
      break;
    case 'tool':
      await runTool(ctx, action as ToolAction);
      break;
    case 'mcpTool':
      await runMcpTool(ctx, action as McpToolAction);
      break;
    case 'deny':
      await runDeny(ctx, action as DenyAction);
      break;
    case 'systemMessage':
      await systemMessage(ctx, (action as { systemMessage: string }).systemMessage);
      break;
    case 'step':
      await runCustomStep(ctx, action as CustomStepAction);
      break;
    case 'sleep':
      await delay((action as { sleep: number }).sleep, ctx.signal);
      break;
    case 'stall':
      await untilAborted(ctx.signal);
      break;
    case 'stderr':
      await ctx.emitter.stderr((action as { stderr: string }).stderr);
      break;
    case 'raw':
      await ctx.emitter.raw((action as { raw: string }).raw);
      break;
    case 'rawBytes':
      await ctx.emitter.rawChunks(
        (action as { rawBytes: string[] }).rawBytes.map((b) => Buffer.from(b, 'base64')),
      );
      break;
    case 'hugeText':
      await modelCall(ctx, () => runHugeText(ctx, action as HugeTextAction));
      break;
    case 'timestampDeltas':
      await modelCall(ctx, () => runTimestampDeltas(ctx, action as TimestampDeltasAction));
      break;
    case 'exit':
      await ctx.exit((action as { exit: number }).exit);
      break;
    case 'killSelf':
      await killSelf(ctx, (action as KillSelfAction).killSelf);
      break;
    case 'spawnChild':
      await spawnChild(ctx, action as SpawnChildAction);
      break;
    case 'unknownEvent': {
      const name = (action as { unknownEvent: string }).unknownEvent;
      await ctx.emitter.line({ event: name, [name]: {} });
      break;
    }
  }
  throwIfAborted(ctx.signal);
}

/** Writes one step update for the current conversation. */
function step(ctx: TurnContext, index: number, fields: Record<string, unknown>): Promise<void> {
  return ctx.emitter.line(stepEnvelope(ctx.conv.id, index, fields));
}

/** Counts a DONE response's usage into the conversation totals (once, however often DONE is repeated). */
function countUsage(ctx: TurnContext, usage: Usage): void {
  addUsage(ctx.conv.state.usage, usage);
  ctx.conv.save();
}

async function runText(ctx: TurnContext, action: TextAction): Promise<void> {
  const text = dynamicText.get(action)?.(ctx) ?? action.text;
  const index = ctx.conv.nextStep();
  const started = performance.now();
  const chunks = splitText(text, action.chunks ?? 2);
  ctx.lastText = '';
  for (const chunk of chunks.slice(0, -1)) {
    await step(ctx, index, { state: 'ACTIVE', step_type: 'agent_response', text_delta: chunk });
    ctx.lastText += chunk;
    throwIfAborted(ctx.signal);
    if (action.delayMs) await delay(action.delayMs, ctx.signal);
  }
  const last = chunks.at(-1);
  // A failed model step reports usage only when the scenario says so; a normal one always does unless `null`.
  let usage: Usage | undefined;
  if (action.usage !== null && (action.usage !== undefined || !action.error)) {
    usage =
      action.usage === undefined ? deriveUsage(ctx.prompt.length, text.length) : completeUsage(action.usage);
  }
  const fields: Record<string, unknown> = {
    state: action.error ? 'ERROR' : 'DONE',
    step_type: 'agent_response',
  };
  if (last !== undefined) fields.text_delta = last;
  fields.duration_seconds = roundSeconds((performance.now() - started) / 1000);
  if (usage !== undefined) fields.usage = usage;
  if (action.error) fields.error = { type: 'MODEL_ERROR', message: 'the model returned an error' };
  ctx.lastText += last ?? '';
  if (usage !== undefined) countUsage(ctx, usage);
  const line = stepEnvelope(ctx.conv.id, index, fields);
  // agy sometimes repeats a DONE verbatim; consumers must count its usage (and text) once.
  for (let i = 0; i <= (action.duplicateDone ?? 0); i++) await ctx.emitter.line(line);
}

/** Splits text into at most `count` pieces of similar length, never inside a surrogate pair. */
export function splitText(text: string, count: number): string[] {
  if (text === '') return [];
  const chars = Array.from(text);
  const pieces = Math.max(1, Math.min(count, chars.length));
  const out: string[] = [];
  for (let i = 0; i < pieces; i++) {
    out.push(
      chars
        .slice(Math.floor((i * chars.length) / pieces), Math.floor(((i + 1) * chars.length) / pieces))
        .join(''),
    );
  }
  return out;
}

async function runDeny(ctx: TurnContext, action: DenyAction): Promise<void> {
  const { action: permission, display_name, tool, parameters = {} } = action.deny;
  const name = tool ?? permission;
  const index = ctx.conv.nextStep();
  const base = { step_type: 'tool', tool_name: name };
  await step(ctx, index, { state: 'ACTIVE', ...base, tool_info: { name, parameters } });
  throwIfAborted(ctx.signal);
  const toolError = { type: 'PERMISSION_DENIED', message: `permission "${permission}" was denied` };
  await step(ctx, index, { state: 'ERROR', ...base, tool_info: { name, parameters, error: toolError } });
  ctx.denied.push({ action: permission, display_name: display_name ?? displayName(permission) });
}

/** Emits a DONE `system_message` step; its text travels in `text_delta`, the wire's only step text field. */
export async function systemMessage(ctx: TurnContext, text: string): Promise<void> {
  const index = ctx.conv.nextStep();
  await step(ctx, index, { state: 'DONE', step_type: 'system_message', text_delta: text });
}

async function runCustomStep(ctx: TurnContext, action: CustomStepAction): Promise<void> {
  const custom = action.step;
  // A scenario may pin `step_index` (to replay or reorder); otherwise the step takes the next one.
  const index = typeof custom.step_index === 'number' ? custom.step_index : ctx.conv.nextStep();
  if (custom.step_type === 'agent_response' && custom.state === 'DONE' && isUsage(custom.usage)) {
    countUsage(ctx, completeUsage(custom.usage));
  }
  await ctx.emitter.line({
    event: 'step_update',
    step_update: { conversation_id: ctx.conv.id, step_index: index, ...custom },
  });
}

function isUsage(value: unknown): value is Record<string, number> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

async function runHugeText(ctx: TurnContext, action: HugeTextAction): Promise<void> {
  const size = action.hugeText;
  const index = ctx.conv.nextStep();
  const started = performance.now();
  // `repeat` builds the string by doubling, so even hundreds of MiB cost little; ASCII keeps bytes == chars.
  const pattern = '0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ-_';
  const text = pattern.repeat(Math.ceil(size / pattern.length)).slice(0, size);
  await step(ctx, index, { state: 'ACTIVE', step_type: 'agent_response', text_delta: text });
  ctx.lastText = text;
  throwIfAborted(ctx.signal);
  const usage = deriveUsage(ctx.prompt.length, size);
  countUsage(ctx, usage);
  await step(ctx, index, {
    state: 'DONE',
    step_type: 'agent_response',
    duration_seconds: roundSeconds((performance.now() - started) / 1000),
    usage,
  });
}

async function runTimestampDeltas(ctx: TurnContext, action: TimestampDeltasAction): Promise<void> {
  const { count, intervalMs = 0 } = action.timestampDeltas;
  const index = ctx.conv.nextStep();
  for (let i = 0; i < count; i++) {
    if (i > 0 && intervalMs > 0) await delay(intervalMs, ctx.signal);
    const now = String(performance.timeOrigin + performance.now());
    await step(ctx, index, { state: 'ACTIVE', step_type: 'agent_response', text_delta: `${now}\n` });
  }
  const usage = deriveUsage(ctx.prompt.length, count);
  countUsage(ctx, usage);
  await step(ctx, index, { state: 'DONE', step_type: 'agent_response', usage });
}

async function killSelf(ctx: TurnContext, signal: NodeJS.Signals): Promise<never> {
  await ctx.emitter.flush();
  ctx.conv.save();
  // Our own handlers would turn SIGTERM into a clean exit; drop them so the signal really kills.
  process.removeAllListeners('SIGTERM');
  process.removeAllListeners('SIGINT');
  process.kill(process.pid, signal);
  // V8's wasm trap handler may swallow the first user-sent SIGSEGV (then uninstalls itself): send it again,
  // and fall back to SIGKILL so the process dies by a signal whatever happens.
  const retry = setInterval(() => process.kill(process.pid, signal), 20);
  setTimeout(() => {
    clearInterval(retry);
    process.kill(process.pid, 'SIGKILL');
  }, 2000);
  return new Promise<never>(() => {});
}

async function spawnChild(ctx: TurnContext, action: SpawnChildAction): Promise<void> {
  const { detached = false, inheritStdio = false } = action.spawnChild;
  // `detached` puts the child in its own session (setsid), out of reach of a kill of agy's process group.
  const child = spawn('sleep', ['1000'], {
    detached,
    stdio: inheritStdio ? ['ignore', 'inherit', 'inherit'] : 'ignore',
  });
  // Never wait for it: a real agy leaks such grandchildren (antigravity-cli #1044), the SDK must cope.
  child.unref();
  child.on('error', () => {});
  await ctx.emitter.stderr(`[agy-sim] child pid ${child.pid}`);
}
