/**
 * The Agent's turn stages, and their one list in the order they run. Each is a small named object over a narrow
 * interface, so it can be unit-tested alone (test/agent/turn-stages.test.ts) and read in one place:
 *
 *   prepare:  slash command → materialize → pending steers → preTurn → budget → reminder → provider usage →
 *             turn schema
 *   step:     control plane → tool transport warning → budget
 *   finish:   MCP server notices → structured output → control plane (postTurn, denials) → provider usage →
 *             cost (the usage ledger)
 */
import type { Connection, Turn, TurnStop } from '../connection/connection.js';
import type { AttachmentFiles } from '../content/attachment-files.js';
import type { ContentPart } from '../content/content.js';
import { materialize } from '../content/materialize.js';
import { isSlashCommand } from '../content/slash-command.js';
import type { TurnStage } from '../conversation/stages.js';
import type { UsageLedger } from '../conversation/usage-ledger.js';
import { ContentError, TurnDeniedError } from '../errors.js';
import type { Logger } from '../logger.js';
import type { ResponseSchema } from '../model/response-schema.js';
import type { Step } from '../model/step.js';
import { BudgetExceededError } from '../model/turn-errors.js';
import type { BudgetName, TurnResult } from '../model/turn-result.js';
import type { ProviderUsage } from '../model/usage.js';
import type { AgentTracing } from '../telemetry/tracing.js';
import type { ControlPlane } from './control-plane.js';
import { toolTransportWarning } from './tool-transport-warning.js';

/**
 * Media parts become private files and a text block naming each; text parts pass as they are. Each file is
 * recorded in `attachments`, which the workspace confinement admits to the model's file reads.
 */
export function materializeStage(
  attachmentsDir: () => Promise<string>,
  attachments: AttachmentFiles,
): TurnStage {
  return {
    name: 'materialize',
    async prepare(turn) {
      turn.text.push(
        ...(await materialize(turn.parts, attachmentsDir, async (media) => {
          turn.media ??= [];
          turn.media.push(media);
          await attachments.add(media.file);
        })),
      );
    },
  };
}

/** Steering messages that found no model call to ride on are delivered first in the next prompt. */
export function pendingSteersStage(take: () => string[]): TurnStage {
  return {
    name: 'pending-steers',
    prepare(turn) {
      turn.text.unshift(...take());
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
): TurnStage {
  return {
    name: 'pre-turn',
    async prepare(turn) {
      const decision = await gate(turn.text.join('\n'), turn.parts);
      if (decision.allow) return;
      const hook = decision.hook ?? 'preTurn';
      throw new TurnDeniedError(decision.message ?? `denied by hook '${hook}'`, { kind: 'hook', name: hook });
    },
  };
}

/** Starts the turn's budget count (a turn-scoped budget resets here). */
export function budgetStartStage(budget: { beginTurn(): void }): TurnStage {
  return { name: 'budget-start', prepare: () => budget.beginTurn() };
}

/** Provider mode: starts counting the upstream's usage for this turn. */
export function providerUsageStartStage(bridge: { beginTurn(): void }): TurnStage {
  return { name: 'provider-usage-start', prepare: () => bridge.beginTurn() };
}

/** Provider mode: the upstream's own counts for the turn go into `TurnResult.providerUsage`. */
export function providerUsageStage(bridge: { endTurn(): ProviderUsage | null }): TurnStage {
  return { name: 'provider-usage', finish: (result) => ({ ...result, providerUsage: bridge.endTurn() }) };
}

/** The configured reminder goes first, as a system reminder. */
export function reminderStage(reminder: string): TurnStage {
  return {
    name: 'reminder',
    prepare(turn) {
      turn.text.unshift(`<system-reminder>\n${reminder}\n</system-reminder>`);
    },
  };
}

/** Lets the control plane see every step (turn ledger, compaction hooks, step floor). */
export function controlStepStage(onStep: (step: Step) => void): TurnStage {
  return {
    name: 'control-plane',
    step(step) {
      onStep(step);
      return undefined;
    },
  };
}

/** A tool step that failed because its MCP server was unreachable is logged: agy still reports SUCCESS. */
export function transportWarningStage(logger: Logger): TurnStage {
  return {
    name: 'tool-transport-warning',
    step(step) {
      const warning = toolTransportWarning(step);
      if (warning) logger.warn(warning);
      return undefined;
    },
  };
}

/** Counts the step against the budgets; crossing one stops the turn `budget_exceeded`. */
export function budgetStepStage(budget: {
  onStep(step: Step): { budget: BudgetName; limit: number; used: number } | undefined;
}): TurnStage {
  return {
    name: 'budget',
    step(step): TurnStop | undefined {
      const over = budget.onStep(step);
      if (!over) return undefined;
      const error = new BudgetExceededError(over.budget, over.limit, over.used);
      return { status: 'budget_exceeded', budget: over.budget, message: error.message, error };
    },
  };
}

/** The user's MCP servers that failed since the last turn are named in this turn's `notices`. */
export function mcpNoticeStage(take: () => string[]): TurnStage {
  return {
    name: 'mcp-servers',
    finish(result) {
      const notices = take();
      return notices.length === 0 ? result : { ...result, notices: [...(result.notices ?? []), ...notices] };
    },
  };
}

/** A named finish stage from a function (of the result, and of the turn where it matters). */
export function finishStage(
  name: string,
  run: (result: TurnResult, turn: Turn) => TurnResult | Promise<TurnResult>,
): TurnStage {
  return { name, finish: run };
}

/** The slash command a turn runs instead of a model turn: a prompt of that one part (later stages then skip). */
export function commandStage(): TurnStage {
  return {
    name: 'slash-command',
    prepare(turn) {
      const [only] = turn.parts;
      if (turn.parts.length === 1 && isSlashCommand(only))
        turn.command = { name: only.name, args: only.args };
    },
  };
}

/** The agent's own schema went in at launch; only a different one travels with the turn. */
export function turnSchemaStage(agentSchema: ResponseSchema | undefined): TurnStage {
  return {
    name: 'turn-schema',
    prepare(turn) {
      const own = turn.schema;
      if (own && !sameSchema(own.jsonSchema, agentSchema?.jsonSchema)) turn.jsonSchema = own.jsonSchema;
    },
  };
}

/** Whether two schemas send agy the same JSON Schema (then no relaunch is needed). */
function sameSchema(a: Record<string, unknown>, b: Record<string, unknown> | undefined): boolean {
  return b !== undefined && JSON.stringify(a) === JSON.stringify(b);
}

/**
 * Validates the turn's structured output against its schema: its own, else the agent's (none for a command).
 * The connection hands over the backend's structured output unvalidated; only a validated value reaches the user.
 */
export function structuredOutputStage(agentSchema: ResponseSchema | undefined): TurnStage {
  return {
    name: 'structured-output',
    finish(result, turn) {
      const schema = turn.command ? undefined : (turn.schema ?? agentSchema);
      if (!schema || result.status !== 'success')
        return result.structuredOutput === undefined ? result : { ...result, structuredOutput: undefined };
      const checked = schema.check(result.structuredOutput);
      if (checked.ok) return { ...result, structuredOutput: checked.value };
      return {
        ...result,
        status: 'error',
        structuredOutput: undefined,
        errorMessage: checked.error.message,
        error: checked.error,
      };
    },
  };
}

/** The backend's attachments directory; a backend without one cannot take media parts. */
function attachmentsDir(connection: Connection): Promise<string> {
  if (!connection.attachmentsDir)
    return Promise.reject(
      new ContentError('this connection cannot take media parts (no attachments directory)'),
    );
  return connection.attachmentsDir();
}

/** The parts an agent's stage list is built from. */
export interface AgentStageParts {
  /** The backend (its attachments directory, for media parts). */
  connection: Connection;
  /** The attachment files the workspace confinement admits to reads. */
  attachments: AttachmentFiles;
  /** The hooks, the turn ledger and the steering queue. */
  control: ControlPlane;
  /** Spans around the preTurn and postTurn hooks, when telemetry is on. */
  tracing: AgentTracing | undefined;
  /** The budgets, when configured. */
  budget: (Parameters<typeof budgetStepStage>[0] & { beginTurn(): void }) | undefined;
  /** `AgentConfig.reminder`. */
  reminder: string | undefined;
  /** Provider mode's gateway (its upstream usage per turn). */
  provider: { beginTurn(): void; endTurn(): ProviderUsage | null } | undefined;
  /** The user's MCP servers' monitor (its notices). */
  mcp: { takeNotices(): string[] } | undefined;
  /** The agent's `responseSchema` (sent at launch). */
  schema: ResponseSchema | undefined;
  /** The usage ledger, whose cost stage runs last. */
  usage: UsageLedger;
  /** Where tool transport warnings go. */
  logger: Logger;
}

/** The agent's stages, in one list (each phase runs in this order; see the map at the top). */
export function agentStages(p: AgentStageParts): TurnStage[] {
  const { control, tracing, budget, provider, mcp } = p;
  return [
    commandStage(),
    materializeStage(() => attachmentsDir(p.connection), p.attachments),
    pendingSteersStage(() => control.steering.take()),
    preTurnStage(
      tracing
        ? (text, parts) => tracing.hook('preTurn', () => control.beginTurn(text, parts))
        : (text, parts) => control.beginTurn(text, parts),
    ),
    ...(budget ? [budgetStartStage(budget)] : []),
    ...(p.reminder ? [reminderStage(p.reminder)] : []),
    ...(provider ? [providerUsageStartStage(provider)] : []),
    turnSchemaStage(p.schema),
    controlStepStage((step) => control.onStep(step)),
    transportWarningStage(p.logger),
    ...(budget ? [budgetStepStage(budget)] : []),
    ...(mcp ? [mcpNoticeStage(() => mcp.takeNotices())] : []),
    structuredOutputStage(p.schema),
    finishStage(
      'control-plane',
      tracing
        ? (result) => tracing.hook('postTurn', () => control.endTurn(result))
        : (result) => control.endTurn(result),
    ),
    ...(provider ? [providerUsageStage(provider)] : []),
    p.usage.stage(),
  ];
}
