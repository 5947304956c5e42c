/**
 * Accumulates what one turn produced: text, per-step usage (each DONE model step counted once), tool calls,
 * stderr lines and the terminal `result`.
 */
import type { Step, ToolCall, Usage } from '../../conversation/step.js';
import { addUsage, knownUsage, zeroUsage } from '../../conversation/usage.js';
import type { WireResult } from './wire.js';

const DENIAL_TYPES = new Set(['HOOK_DENIED', 'PERMISSION_DENIED']);

export class TurnTracker {
  readonly startedAt = Date.now();
  #text = '';
  readonly #usage: Usage = zeroUsage();
  #sawStepUsage = false;
  readonly #toolCalls = new Map<string, ToolCall>();
  readonly stderrLines: string[] = [];
  agentResponseError: string | undefined;
  result: WireResult | null = null;
  lineTooLong = false;
  /** Tool steps that failed because a hook or permission check denied them. */
  readonly deniedToolSteps = new Set<string>();
  /** stdout lines received since the user line was written. */
  lines = 0;
  /** The last stdout line (raw), for watchdog diagnostics. */
  lastLine: string | undefined;

  /**
   * @param countedSteps Conversation-wide set of `<conversation>:<step>` keys whose usage was already counted;
   *   agy may repeat a DONE update, and its usage must count once.
   */
  constructor(private readonly countedSteps: Set<string>) {}

  onStep(step: Step): void {
    if (step.type === 'agent_response') {
      if (step.textDelta) this.#text += step.textDelta;
      if (step.state === 'DONE' && step.usage) {
        const key = `${step.conversationId ?? ''}:${step.stepIndex}`;
        if (!this.countedSteps.has(key)) {
          this.countedSteps.add(key);
          addUsage(this.#usage, step.usage);
          this.#sawStepUsage = true;
        }
      } else if (step.state === 'ERROR') {
        const err = step.raw.error;
        this.agentResponseError =
          typeof err === 'string' ? err : err !== undefined ? JSON.stringify(err) : '';
      }
    }
    if (step.tool) {
      this.#toolCalls.set(step.tool.id, step.tool);
      const err = step.tool.error;
      // A call a hook denied (ours or anyone's) shows up only as a failed tool step (agy-cli.md §D.6).
      if (err && (DENIAL_TYPES.has(err.type ?? '') || /^Tool call denied/i.test(err.message))) {
        this.deniedToolSteps.add(step.tool.id);
      }
    }
  }

  /** Text streamed so far. */
  get text(): string {
    return this.#text;
  }

  /** Tool calls in the state they are in now. */
  get toolCalls(): ToolCall[] {
    return [...this.#toolCalls.values()];
  }

  /** Per-turn usage from model steps, or null when there was none (all-zero counts as none). */
  get stepUsage(): Usage | null {
    return this.#sawStepUsage ? knownUsage({ ...this.#usage }) : null;
  }
}
