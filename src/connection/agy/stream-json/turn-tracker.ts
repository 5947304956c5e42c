/**
 * Accumulates what one turn produced: text, usage, tool calls, notices, stderr lines and the terminal `result`.
 *
 * What real agy does that this has to absorb (agy-real/README.md):
 * - usage sits on DONE steps of every type (`checkpoint` steps on 1.1.x carry some), and the turn's usage is their
 *   sum; agy may repeat a DONE update, whose usage and final text delta must count once;
 * - a subagent's steps carry its own `conversation_id` and belong to it, not to the parent's text or usage;
 * - a soft-denied tool step ends DONE without output (1.2.17+) and is only known as denied from
 *   `result.denied_actions`, or ends ERROR "…denied permission…" (1.2.7).
 */
import type { CommandResult, Step, SubagentInfo, ToolCall, Usage } from '../../../model/step.js';
import type { DeniedAction } from '../../../model/turn-result.js';
import { addUsage, knownUsage, zeroUsage } from '../../../model/usage.js';
import type { WireResult } from '../../../protocol/stream-json-wire.js';

const DENIAL_TYPES = new Set(['HOOK_DENIED', 'PERMISSION_DENIED']);
// agy's words for a PreToolUse hook's denial (agy-real/littlebearapps-untether-agy-1.3.1/hook_deny_bypass.script).
const HOOK_DENIAL_PREFIX = /^tool call denied by pre-tool hook: /i;
// 1.2.7 soft denial: TOOL_ERROR "permission check failed for write_file …: user denied permission for …"
// (agy-real/jdiazromeral-agy-plugin-cc/denied_actions-2026-09-20-run1.ndjson).
const DENIED_MESSAGE = /^Tool call denied|\buser denied permission\b/i;
// agy's permission names (`denied_actions[].action`) for tools whose name is not the display name in snake_case.
const ACTION_TOOLS: Record<string, readonly string[]> = {
  command: ['run_command'],
  write_file: ['write_to_file', 'replace_file_content', 'multi_replace_file_content'],
};

const stepKey = (step: Step): string => `${step.conversationId ?? ''}:${step.stepIndex}`;
const isTerminal = (state: string): boolean => state === 'DONE' || state === 'ERROR';

/** `RunCommand` → `run_command`. */
function snakeCase(name: string): string {
  return name.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toLowerCase();
}

/** Whether agy's denied action names this tool call. */
export function deniedActionMatches(call: ToolCall, d: DeniedAction): boolean {
  if (call.name === d.action || ACTION_TOOLS[d.action]?.includes(call.name)) return true;
  return d.displayName !== undefined && snakeCase(d.displayName) === call.name;
}

export class TurnTracker {
  readonly startedAt = Date.now();
  #text = '';
  readonly #usage: Usage = zeroUsage();
  #sawStepUsage = false;
  #sawModelStep = false;
  #finishedModelStep = false;
  readonly #subagentUsage = new Map<string, Usage>();
  readonly #subagents = new Map<string, SubagentInfo>();
  /** Steps of this turn that already had their terminal update. */
  readonly #ended = new Set<string>();
  /** The latest view of each call, and every object handed out for it (marked denied in place). */
  readonly #toolCalls = new Map<string, ToolCall>();
  readonly #toolCallViews = new Map<string, ToolCall[]>();
  readonly stderrLines: string[] = [];
  /** Texts of `error_message` and `unknown` steps, in order. */
  readonly notices: string[] = [];
  agentResponseError: string | undefined;
  result: WireResult | null = null;
  command: CommandResult | undefined;
  lineTooLong = false;
  /** The dropped over-long line was the turn's `result`: nothing more will end the turn. */
  resultTooLong = false;
  lineTooDeep = false;
  /** `step_update` lines that could not be placed during the turn, and the first one. */
  malformedSteps: { count: number; first: string } | undefined;
  /** Tool steps that failed because a hook or permission check denied them. */
  readonly deniedToolSteps = new Set<string>();
  /**
   * Calls a PreToolUse hook denied, as agy reported them on the tool step ("tool call denied by pre-tool hook:
   * <reason>"), with the hook's reason: they join `TurnResult.deniedActions`.
   */
  readonly hookDenials: DeniedAction[] = [];
  /** stdout lines received since the user line was written. */
  lines = 0;
  /** The last stdout line (raw), for watchdog diagnostics. */
  lastLine: string | undefined;

  /**
   * @param countedSteps Conversation-wide set of `<conversation>:<step>` keys whose usage was already counted;
   *   agy may repeat a DONE update, and its usage must count once.
   * @param parentConversationId The turn's own conversation; steps of any other belong to a subagent.
   */
  readonly #countedSteps: Set<string>;
  readonly #parentConversationId: () => string | undefined;

  constructor(countedSteps: Set<string>, parentConversationId: () => string | undefined) {
    this.#countedSteps = countedSteps;
    this.#parentConversationId = parentConversationId;
  }

  /** Records a step and returns the step to deliver: attributed to its subagent, without a repeated delta. */
  onStep(input: Step): Step {
    let step = input;
    // Only terminal updates need the key: a streaming delta (most lines of a turn) builds no string.
    const terminal = isTerminal(step.state);
    const key = terminal ? stepKey(step) : '';
    if (step.subagents)
      for (const s of step.subagents) if (s.conversationId) this.#subagents.set(s.conversationId, s);
    const parent = this.#parentConversationId();
    const subagentId =
      step.conversationId !== undefined && parent !== undefined && step.conversationId !== parent
        ? step.conversationId
        : undefined;
    if (subagentId !== undefined) {
      step = { ...step, subagent: { ...this.#subagents.get(subagentId), conversationId: subagentId } };
    }
    if (terminal) {
      if (this.#ended.has(key)) {
        // agy resent the terminal update: its last delta is already in the text.
        const { textDelta: _dropped, ...rest } = step;
        step = { ...rest, repeat: true };
      } else this.#ended.add(key);
    }

    if (step.state === 'DONE' && step.usage && !this.#countedSteps.has(key)) {
      this.#countedSteps.add(key);
      if (subagentId === undefined) {
        addUsage(this.#usage, step.usage);
        this.#sawStepUsage = true;
      } else {
        const acc = this.#subagentUsage.get(subagentId) ?? zeroUsage();
        this.#subagentUsage.set(subagentId, addUsage(acc, step.usage));
      }
    }
    if (step.type === 'agent_response' && subagentId === undefined) {
      this.#sawModelStep = true;
      if (step.state === 'DONE') this.#finishedModelStep = true;
      if (step.textDelta) this.#text += step.textDelta;
      if (step.state === 'ERROR' && !step.repeat) {
        const err = step.raw.error;
        this.agentResponseError =
          typeof err === 'string' ? err : err !== undefined ? JSON.stringify(err) : '';
      }
    }
    if (step.message !== undefined && !step.repeat) this.notices.push(step.message);
    if (step.tool) step = this.#onToolStep(step, step.tool);
    return step;
  }

  /** Records a tool step's call (its latest view, every view handed out) and what denied it, if anything. */
  #onToolStep(input: Step, tool: ToolCall): Step {
    let step = input;
    let call = tool;
    const before = this.#toolCalls.get(call.id);
    // agy 1.3.1's `finish` step turns DONE as `step_type:"finish"` with no `tool_info`
    // (agy-real/littlebearapps-untether-agy-1.3.1/json_schema_finish.script): the call keeps the arguments
    // its ACTIVE update showed.
    if (before && step.raw.tool_info === undefined) {
      call = {
        ...call,
        name: before.name,
        args: before.args,
        mcpServer: before.mcpServer,
        wire: before.wire,
      } as ToolCall;
      step = { ...step, tool: call };
    }
    this.#toolCalls.set(call.id, call);
    const views = this.#toolCallViews.get(call.id);
    if (views) views.push(call);
    else this.#toolCallViews.set(call.id, [call]);
    const err = call.error;
    // A call a hook or agy's permission check denied shows up only as a failed tool step (docs/reference/hooks.md#hook-denials-on-stdout).
    if (err && (DENIAL_TYPES.has(err.type ?? '') || DENIED_MESSAGE.test(err.message))) {
      this.#markDenied(call.id);
      if (!this.deniedToolSteps.has(call.id) && HOOK_DENIAL_PREFIX.test(err.message)) {
        this.hookDenials.push({
          action: call.mcpServer ? `${call.mcpServer}/${call.name}` : call.name,
          source: 'agy',
          // A PreToolUse hook's denial agy echoed: the SDK's own is recognised and replaced by the control
          // plane (foldDenials); one left is the raw agyHooks' (or a hook's fail-closed answer).
          deniedBy: { kind: 'hook', name: 'agyHooks' },
          reason: err.message.replace(HOOK_DENIAL_PREFIX, ''),
          args: call.args,
        });
      }
      this.deniedToolSteps.add(call.id);
    }
    return step;
  }

  /**
   * Marks the calls agy soft-denied (`result.denied_actions`): on 1.2.17+ the step ends DONE without output,
   * so the `result` is the first place that says so (agy-real/joiomi-playbook-plugin-agy-1.2.17/denied-command.stdout).
   */
  applyDeniedActions(denied: readonly DeniedAction[]): void {
    if (denied.length === 0) return;
    for (const call of this.#toolCalls.values()) {
      if (call.denied) continue;
      const silent = call.state === 'DONE' && call.output === undefined && call.error === undefined;
      if (silent && denied.some((d) => deniedActionMatches(call, d))) this.#markDenied(call.id);
    }
  }

  /**
   * agy 1.1.x ends a soft-denied turn `CANCELED` with the tool step DONE and no output, no `denied_actions`,
   * and a stderr line naming the permission (docs/reference/stream-json.md#canceled-soft-denial): marks the silent
   * calls the permission covers (all silent calls when it names none this table knows), or, without the line,
   * the last silent call.
   */
  applySoftDenial(permission: string | undefined): void {
    const silent = this.silentToolCalls;
    if (silent.length === 0) return;
    if (permission === undefined) {
      this.#markDenied(silent.at(-1)!.id);
      return;
    }
    const d: DeniedAction = { action: permission };
    const matching = silent.filter((c) => deniedActionMatches(c, d));
    for (const call of matching.length > 0 ? matching : silent) this.#markDenied(call.id);
  }

  /** Tool calls that ended DONE with neither output nor error, not yet marked denied. */
  get silentToolCalls(): ToolCall[] {
    return [...this.#toolCalls.values()].filter(
      (c) => !c.denied && c.state === 'DONE' && c.output === undefined && c.error === undefined,
    );
  }

  #markDenied(id: string): void {
    for (const view of this.#toolCallViews.get(id) ?? []) view.denied = true;
  }

  /** Text streamed so far by the turn's own model steps (subagents' excluded, repeats counted once). */
  get text(): string {
    // The text grew by `+=` one delta at a time: a chain of one rope node per delta (~100 bytes each on a
    // 10,000-step turn, kept as long as the TurnResult). Reading a character makes V8 flatten it in place.
    this.#text.charCodeAt(0);
    return this.#text;
  }

  /** Tool calls in the state they are in now. */
  get toolCalls(): ToolCall[] {
    return [...this.#toolCalls.values()];
  }

  /** Per-turn usage from DONE steps, or null when there was none (all-zero counts as none). */
  get stepUsage(): Usage | null {
    return this.#sawStepUsage ? knownUsage({ ...this.#usage }) : null;
  }

  /** True when a DONE step of the turn's own conversation carried usage. */
  get sawStepUsage(): boolean {
    return this.#sawStepUsage;
  }

  /** True when the turn's own conversation had an `agent_response` step. */
  get sawModelStep(): boolean {
    return this.#sawModelStep;
  }

  /** True when an `agent_response` step of the turn's own conversation reached DONE. */
  get finishedModelStep(): boolean {
    return this.#finishedModelStep;
  }

  /** Usage per subagent conversation; `undefined` when no subagent step carried usage. */
  get subagentUsage(): Record<string, Usage> | undefined {
    if (this.#subagentUsage.size === 0) return undefined;
    return Object.fromEntries([...this.#subagentUsage].map(([id, u]) => [id, { ...u }]));
  }
}
