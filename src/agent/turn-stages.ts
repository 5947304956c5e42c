/**
 * The Agent's turn stages, in the order they run. Each is a small named object over a narrow interface, so it
 * can be unit-tested alone (test/agent/turn-stages.test.ts) and read in one place:
 *
 *   prepare:  materialize → pending steers → preTurn → budget → reminder
 *   step:     control plane → tool transport warning → budget
 *   finish:   MCP server notices → structured output → control plane (postTurn, denials) → provider usage →
 *             cost (agent.ts)
 */
import type { AttachmentFiles } from '../content/attachment-files.js';
import type { ContentPart } from '../content/content.js';
import { materialize } from '../content/materialize.js';
import type { TurnStop } from '../conversation/conversation.js';
import type { FinishStage, PrepareStage, StepStage } from '../conversation/pipeline.js';
import type { TurnInput } from '../conversation/turn-input.js';
import { TurnDeniedError } from '../errors.js';
import type { Logger } from '../logger.js';
import type { Step } from '../model/step.js';
import { BudgetExceededError } from '../model/turn-errors.js';
import type { BudgetName, TurnResult } from '../model/turn-result.js';
import type { ProviderUsage } from '../model/usage.js';
import { toolTransportWarning } from './tool-transport-warning.js';

/**
 * Media parts become private files and a text block naming each; text parts pass as they are. Each file is
 * recorded in `attachments`, which the workspace confinement admits to the model's file reads.
 */
export function materializeStage(
  attachmentsDir: () => Promise<string>,
  attachments: AttachmentFiles,
): PrepareStage<ContentPart> {
  return {
    name: 'materialize',
    async run(draft) {
      draft.text.push(
        ...(await materialize(draft.parts, attachmentsDir, async (media) => {
          draft.media ??= [];
          draft.media.push(media);
          await attachments.add(media.file);
        })),
      );
    },
  };
}

/** Steering messages that found no model call to ride on are delivered first in the next prompt. */
export function pendingSteersStage(take: () => string[]): PrepareStage<ContentPart> {
  return {
    name: 'pending-steers',
    run(draft) {
      draft.text.unshift(...take());
    },
  };
}

/**
 * `preTurn` hooks see the prompt text, and its parts as given (`TurnContext.prompt`); a deny ends the turn
 * `denied` before anything is sent.
 */
export function preTurnStage(
  gate: (
    promptText: string,
    parts: readonly ContentPart[],
  ) => Promise<{ allow: boolean; message?: string; hook?: string }>,
): PrepareStage<ContentPart> {
  return {
    name: 'pre-turn',
    async run(draft) {
      const decision = await gate(draft.text.join('\n'), draft.parts);
      if (decision.allow) return;
      const hook = decision.hook ?? 'preTurn';
      throw new TurnDeniedError(decision.message ?? `denied by hook '${hook}'`, { kind: 'hook', name: hook });
    },
  };
}

/** Starts the turn's budget count (a turn-scoped budget resets here). */
export function budgetStartStage(budget: { beginTurn(): void }): PrepareStage<ContentPart> {
  return { name: 'budget-start', run: () => budget.beginTurn() };
}

/** Provider mode: starts counting the upstream's usage for this turn. */
export function providerUsageStartStage(bridge: { beginTurn(): void }): PrepareStage<ContentPart> {
  return { name: 'provider-usage-start', run: () => bridge.beginTurn() };
}

/** Provider mode: the upstream's own counts for the turn go into `TurnResult.providerUsage`. */
export function providerUsageStage(bridge: { endTurn(): ProviderUsage | null }): FinishStage {
  return { name: 'provider-usage', run: (result) => ({ ...result, providerUsage: bridge.endTurn() }) };
}

/** The configured reminder goes first, as a system reminder. */
export function reminderStage(reminder: string): PrepareStage<ContentPart> {
  return {
    name: 'reminder',
    run(draft) {
      draft.text.unshift(`<system-reminder>\n${reminder}\n</system-reminder>`);
    },
  };
}

/** Lets the control plane see every step (turn ledger, compaction hooks, step floor). */
export function controlStepStage(onStep: (step: Step) => void): StepStage {
  return {
    name: 'control-plane',
    run(step) {
      onStep(step);
      return undefined;
    },
  };
}

/** A tool step that failed because its MCP server was unreachable is logged: agy still reports SUCCESS. */
export function transportWarningStage(logger: Logger): StepStage {
  return {
    name: 'tool-transport-warning',
    run(step) {
      const warning = toolTransportWarning(step);
      if (warning) logger.warn(warning);
      return undefined;
    },
  };
}

/** Counts the step against the budgets; crossing one stops the turn `budget_exceeded`. */
export function budgetStepStage(budget: {
  onStep(step: Step): { budget: BudgetName; limit: number; used: number } | undefined;
}): StepStage {
  return {
    name: 'budget',
    run(step): TurnStop | undefined {
      const over = budget.onStep(step);
      if (!over) return undefined;
      const error = new BudgetExceededError(over.budget, over.limit, over.used);
      return { status: 'budget_exceeded', budget: over.budget, message: error.message, error };
    },
  };
}

/** The user's MCP servers that failed since the last turn are named in this turn's `notices`. */
export function mcpNoticeStage(take: () => string[]): FinishStage {
  return {
    name: 'mcp-servers',
    run(result) {
      const notices = take();
      return notices.length === 0 ? result : { ...result, notices: [...(result.notices ?? []), ...notices] };
    },
  };
}

/** A named finish stage from a function (of the result, and of the turn's input where it matters). */
export function finishStage(
  name: string,
  run: (result: TurnResult, input: TurnInput) => TurnResult | Promise<TurnResult>,
): FinishStage {
  return { name, run };
}
