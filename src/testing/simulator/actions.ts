/**
 * One scenario action each: the steps agy would stream for it, or the misbehaviour it stands for.
 * Shapes follow the real captures (shared/fixtures/agy-real): `agent_response` streams `text_delta` on ACTIVE
 * updates and ends with a DONE carrying the last delta, `duration_seconds` and `usage`; a tool call is preceded
 * by a text-less DONE `agent_response` (the model call that chose it); `tool` steps carry `tool_name`,
 * `tool_info` and, when they end, `duration_seconds`. Every DONE step's usage counts into the conversation's
 * cumulative `result.usage`, so the sum over DONE steps always equals it.
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { delay, throwIfAborted, untilAborted } from './abort.js';
import { roundSeconds, stepEnvelope } from './envelopes.js';
import { invocationHooks } from './hook-events.js';
import type {
  CheckpointAction,
  CustomStepAction,
  DenyAction,
  HugeTextAction,
  KillSelfAction,
  McpToolAction,
  ModelStepOption,
  RateLimitAction,
  ScenarioAction,
  SpawnChildAction,
  SubagentAction,
  TextAction,
  TimestampDeltasAction,
  ToolAction,
} from './scenario.js';
import { actionKind } from './scenario-action-check.js';
import { denyStep, runMcpTool, runTool } from './tool-steps.js';
import { nextIndex, step, type TurnContext } from './turn-context.js';
import { addUsage, completeUsage, deriveUsage, type Usage } from './usage.js';

// The turn context lives in turn-context.ts (shared with tool-steps.ts and hook-events.ts); re-exported for the
// turn runner and the model endpoint.
export { nextIndex, step, type TurnContext } from './turn-context.js';

/** A model call failed (`text.error`): the turn ends at once with `result` ERROR carrying this message. */
export class ModelCallFailed extends Error {}

/** What a scripted model failure reports when the scenario's `end.error` does not say. */
export const MODEL_ERROR_MESSAGE = 'the model returned an error';

/** Default usage of a `checkpoint` step (1.1.x checkpoints spend ~100 input and ~4 output tokens). */
const CHECKPOINT_USAGE = { input_tokens: 100, output_tokens: 4 };

/**
 * Text computed when its model call runs rather than when the turn was scripted: the default script's reply
 * mentions what hooks injected and what an MCP tool returned. Keyed by the (internal) action object.
 */
export const dynamicText = new WeakMap<TextAction, (ctx: TurnContext) => string>();

/** Runs one model call with the PreInvocation hooks before it and the PostInvocation hooks after it. */
export async function modelCall(ctx: TurnContext, call: () => Promise<void>): Promise<void> {
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
      await modelStepBefore(ctx, (action as ToolAction).modelStep);
      await runTool(ctx, action as ToolAction);
      break;
    case 'mcpTool':
      await modelStepBefore(ctx, (action as McpToolAction).modelStep);
      await runMcpTool(ctx, action as McpToolAction);
      break;
    case 'deny':
      await modelStepBefore(ctx, (action as DenyAction).modelStep);
      await runDeny(ctx, action as DenyAction);
      break;
    case 'systemMessage':
      await systemMessage(ctx, (action as { systemMessage: string }).systemMessage);
      break;
    case 'checkpoint':
      await checkpoint(ctx, (action as CheckpointAction).checkpoint);
      break;
    case 'unknownStep':
      await unknownStep(ctx);
      break;
    case 'rateLimit':
      await errorMessages(ctx, (action as RateLimitAction).rateLimit.retries ?? 7);
      break;
    case 'subagent':
      await modelStepBefore(ctx, (action as SubagentAction).modelStep);
      await runSubagent(ctx, action as SubagentAction);
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

/** Counts a DONE step's usage into the conversation totals (once, however often DONE is repeated). */
export function countUsage(ctx: TurnContext, usage: Usage): void {
  addUsage(ctx.conv.state.usage, usage);
  ctx.conv.save();
}

/** The text-less model step agy writes before a tool call, unless `option` is false. */
async function modelStepBefore(ctx: TurnContext, option: ModelStepOption | undefined): Promise<void> {
  if (option === false) return;
  const given = typeof option === 'object' ? option.usage : undefined;
  await modelCall(ctx, async () => {
    const index = nextIndex(ctx);
    const started = performance.now();
    const usage = given === undefined ? deriveUsage(ctx.prompt.length, 0) : completeUsage(given);
    countUsage(ctx, usage);
    ctx.modelSteps++;
    await step(ctx, index, {
      state: 'DONE',
      step_type: 'agent_response',
      duration_seconds: roundSeconds((performance.now() - started) / 1000),
      usage,
    });
  });
}

/** A DONE `checkpoint` step with duration and usage (agy 1.1.x). */
export async function checkpoint(ctx: TurnContext, option: CheckpointAction['checkpoint']): Promise<void> {
  const index = nextIndex(ctx);
  const usage = completeUsage(
    option === true || option.usage === undefined ? CHECKPOINT_USAGE : option.usage,
  );
  countUsage(ctx, usage);
  ctx.checkpointed = true;
  await step(ctx, index, { state: 'DONE', step_type: 'checkpoint', duration_seconds: 0.000001, usage });
}

/** A DONE `unknown` step: agy 1.1.9's fallback notice (unknown conversation or agent). */
export async function unknownStep(ctx: TurnContext): Promise<void> {
  await step(ctx, nextIndex(ctx), { state: 'DONE', step_type: 'unknown', duration_seconds: 0.000001 });
}

/** `count` DONE `error_message` steps: failed API calls agy retried (rate limits, quota). */
export async function errorMessages(ctx: TurnContext, count: number): Promise<void> {
  for (let i = 0; i < count; i++) {
    await step(ctx, nextIndex(ctx), { state: 'DONE', step_type: 'error_message' });
    throwIfAborted(ctx.signal);
  }
}

async function runText(ctx: TurnContext, action: TextAction): Promise<void> {
  if (action.error) {
    // No real agy writes a model step in state ERROR: a failed API call is a DONE `error_message` step.
    await errorMessages(ctx, 1);
    throw new ModelCallFailed(MODEL_ERROR_MESSAGE);
  }
  const text = dynamicText.get(action)?.(ctx) ?? action.text;
  const index = nextIndex(ctx);
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
  const usage =
    action.usage === null
      ? undefined
      : action.usage === undefined
        ? deriveUsage(ctx.prompt.length, text.length)
        : completeUsage(action.usage);
  const fields: Record<string, unknown> = { state: 'DONE', step_type: 'agent_response' };
  if (last !== undefined) fields.text_delta = last;
  fields.duration_seconds = roundSeconds((performance.now() - started) / 1000);
  if (usage !== undefined) fields.usage = usage;
  ctx.lastText += last ?? '';
  ctx.turnText += ctx.lastText;
  ctx.modelSteps++;
  if (usage !== undefined) countUsage(ctx, usage);
  const line = stepEnvelope(ctx.stepConversation ?? ctx.conv.id, index, fields);
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
  const { action: permission, display_name, tool, parameters = {}, target, form } = action.deny;
  const name = tool ?? permission;
  const index = nextIndex(ctx);
  const started = performance.now();
  const base = { step_type: 'tool', tool_name: name };
  await step(ctx, index, { state: 'ACTIVE', ...base, tool_info: { name, parameters } });
  throwIfAborted(ctx.signal);
  await denyStep(ctx, index, name, parameters, started, {
    permission,
    displayName: display_name,
    target,
    form,
  });
}

/**
 * Emits a DONE `system_message` step. Real ones carry no text on the wire
 * (agy-real/jdiazromeral-agy-plugin-cc/resume-2026-08-02-run1.ndjson), so `_text` is not written; 1.2+ add
 * `duration_seconds` (agy-real/unnamed-plenipo-agy-1.2.13/e3-resume-conversation.ndjson).
 */
export async function systemMessage(ctx: TurnContext, _text: string): Promise<void> {
  const index = nextIndex(ctx);
  await step(ctx, index, {
    state: 'DONE',
    step_type: 'system_message',
    ...(ctx.profile.systemMessageDuration && { duration_seconds: 0.000243 }),
  });
}

async function runCustomStep(ctx: TurnContext, action: CustomStepAction): Promise<void> {
  const custom = action.step;
  // A scenario may pin `step_index` (to replay or reorder); otherwise the step takes the next one.
  const index = typeof custom.step_index === 'number' ? custom.step_index : nextIndex(ctx);
  // Whatever its type (agent_response, checkpoint, …), a DONE step's usage is part of result.usage.
  if (custom.state === 'DONE' && isUsage(custom.usage)) countUsage(ctx, completeUsage(custom.usage));
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
  const index = nextIndex(ctx);
  const started = performance.now();
  // `repeat` builds the string by doubling, so even hundreds of MiB cost little; ASCII keeps bytes == chars.
  const pattern = '0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ-_';
  const text = pattern.repeat(Math.ceil(size / pattern.length)).slice(0, size);
  await step(ctx, index, { state: 'ACTIVE', step_type: 'agent_response', text_delta: text });
  ctx.lastText = text;
  ctx.turnText += text;
  throwIfAborted(ctx.signal);
  const usage = deriveUsage(ctx.prompt.length, size);
  countUsage(ctx, usage);
  ctx.modelSteps++;
  await step(ctx, index, {
    state: 'DONE',
    step_type: 'agent_response',
    duration_seconds: roundSeconds((performance.now() - started) / 1000),
    usage,
  });
}

async function runTimestampDeltas(ctx: TurnContext, action: TimestampDeltasAction): Promise<void> {
  const { count, intervalMs = 0 } = action.timestampDeltas;
  const index = nextIndex(ctx);
  for (let i = 0; i < count; i++) {
    if (i > 0 && intervalMs > 0) await delay(intervalMs, ctx.signal);
    const now = String(performance.timeOrigin + performance.now());
    await step(ctx, index, { state: 'ACTIVE', step_type: 'agent_response', text_delta: `${now}\n` });
  }
  const usage = deriveUsage(ctx.prompt.length, count);
  countUsage(ctx, usage);
  ctx.modelSteps++;
  await step(ctx, index, { state: 'DONE', step_type: 'agent_response', duration_seconds: 0, usage });
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

/** The parent's text while its subagent runs when the scenario gives none (agy-real/littlebearapps-untether-agy-1.3.1/subagent.script). */
const SUBAGENT_WAITING: TextAction = {
  text: 'I have spawned the subagent. Waiting for its response.\n',
  chunks: 5,
};

/**
 * A subagent run as agy 1.3.1 writes it (agy-real/littlebearapps-untether-agy-1.3.1/subagent.script): the
 * `subagent` step ACTIVE with the entry's `initial_prompt` and no `tool_info`, DONE with the subagent's
 * conversation, log and workspaces; none of the subagent's steps or usage; then the parent's waiting text, a
 * DONE `system_message` (the reply arriving) and the parent's answer. `response` joins the two texts, as agy's.
 * `stream: true` writes the reference's shape instead ({@link streamSubagent}).
 */
async function runSubagent(ctx: TurnContext, action: SubagentAction): Promise<void> {
  if (action.subagent.stream === true) return streamSubagent(ctx, action);
  const { name = 'general', role = 'subagent', prompt, actions, waiting, answer } = action.subagent;
  const index = nextIndex(ctx);
  const started = performance.now();
  const child = randomUUID();
  const entry = { type_name: name, role, initial_prompt: prompt };
  const base = { step_type: 'subagent', tool_name: 'invoke_subagent' };
  await step(ctx, index, { state: 'ACTIVE', ...base, subagent_info: { subagents: [entry] } });
  throwIfAborted(ctx.signal);
  await step(ctx, index, {
    state: 'DONE',
    ...base,
    duration_seconds: roundSeconds((performance.now() - started) / 1000),
    subagent_info: {
      subagents: [
        {
          ...entry,
          conversation_id: child,
          // Where agy keeps the subagent's transcript; the simulator names the place but never writes there.
          log_uri: `file://${join(homedir(), '.gemini/antigravity-cli/brain', child, '.system_generated/logs/transcript.jsonl')}`,
          workspace_uris: ctx.runtime.config.workspaces.map((dir) => `file://${dir}`),
        },
      ],
    },
  });
  throwIfAborted(ctx.signal);
  const reply = [...actions].reverse().find((a): a is TextAction => 'text' in a)?.text ?? '';
  await runAction(ctx, waiting ?? SUBAGENT_WAITING);
  const said = ctx.lastText;
  await systemMessage(ctx, 'the subagent replied');
  // agy's answer step ends its text with a newline ("SUB SAID banana\n" in the capture), as every captured
  // text step before another does: the parent's next words start on a line of their own, not glued to it.
  await runAction(ctx, answer ?? { text: reply.endsWith('\n') ? reply : `${reply}\n`, chunks: 1 });
  ctx.lastText = said + ctx.lastText;
}

/**
 * The reference's subagent shape (docs/reference/stream-json.md#subagents; no captured build writes it): the
 * parent's `subagent` step goes ACTIVE, the subagent's steps stream under its own conversation id (from step 0,
 * starting with a DONE `user_input` as every captured one: no other field), then the parent's step ends DONE
 * with the subagent's last text as output. Usage counts into the parent conversation. The prompt is where agy
 * 1.3.1 puts it, in the `subagent_info` entry (agy-real/littlebearapps-untether-agy-1.3.1/subagent.script):
 * no source shows it on a step itself, and the SDK rightly reported such a field as drift.
 */
async function streamSubagent(ctx: TurnContext, action: SubagentAction): Promise<void> {
  const { name = 'general', role = 'subagent', prompt, actions } = action.subagent;
  const index = ctx.conv.nextStep();
  const started = performance.now();
  const child = randomUUID();
  const parameters = { Name: name, Prompt: prompt };
  const info = {
    subagents: [
      {
        type_name: name,
        role,
        initial_prompt: prompt,
        conversation_id: child,
        // Where agy keeps a conversation's logs; the simulator names the place but never writes there.
        log_uri: `file://${join(homedir(), '.gemini/antigravity-cli/brain', child)}`,
        workspace_uris: ctx.runtime.config.workspaces.map((dir) => `file://${dir}`),
      },
    ],
  };
  const base = { step_type: 'subagent', tool_name: 'invoke_subagent' };
  await step(ctx, index, {
    state: 'ACTIVE',
    ...base,
    tool_info: { name: 'invoke_subagent', parameters },
    subagent_info: info,
  });
  const parentText = ctx.lastText;
  const parentTurnText = ctx.turnText;
  ctx.stepConversation = child;
  ctx.subagentSteps = { next: 0 };
  try {
    await step(ctx, nextIndex(ctx), { state: 'DONE', step_type: 'user_input' });
    for (const inner of actions) await runAction(ctx, inner);
  } finally {
    ctx.stepConversation = undefined;
    ctx.subagentSteps = undefined;
  }
  const output = ctx.lastText;
  ctx.lastText = parentText;
  // The subagent's texts are its own conversation's, not the parent turn's response.
  ctx.turnText = parentTurnText;
  await step(ctx, index, {
    state: 'DONE',
    ...base,
    duration_seconds: roundSeconds((performance.now() - started) / 1000),
    tool_info: { name: 'invoke_subagent', parameters, output },
    subagent_info: info,
  });
}
