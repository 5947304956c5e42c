/**
 * A slash command (`TurnRequest.command`) as a turn: a print-mode run on the same conversation
 * (`print-command.ts`); its `command_result` is delivered as a `command` step and is `TurnResult.command`.
 */
import { ProcessExitError } from '../../../errors.js';
import { callContained } from '../../../internal/contain.js';
import type { Logger } from '../../../logger.js';
import type { Step } from '../../../model/step.js';
import type { TurnResult } from '../../../model/turn-result.js';
import type { ActiveTurn } from './active-turn.js';
import { commandFromWire, resultFacts } from './normalize.js';
import { classifyTurn } from './outcome.js';
import { type PrintCommandOutcome, runPrintCommand } from './print-command.js';
import type { AgyProcessOptions } from './process-options.js';

/** Where a command turn runs and reports. */
export interface CommandTurnContext {
  /** The agy binary. */
  binary: string;
  /** agy's environment. */
  env: NodeJS.ProcessEnv;
  /** The conversation the command runs on. */
  conversationId: string | undefined;
  /** The model of the conversation. */
  model: string | undefined;
  /** Longest stdout line kept. */
  maxLineBytes: number;
  /** The connection's options (effort, limits, callbacks). */
  opts: AgyProcessOptions;
  /** Where contained failures are reported. */
  logger: Logger;
  /** A print-mode agy was spawned (counted in `ConnectionStats.processesStarted`). */
  onSpawn(pid: number): void;
}

/** The `command` step of a `command_result`: not an agy step, so -1 says agy gave it no index. */
export function commandStep(
  conversationId: string | undefined,
  command: NonNullable<Step['command']>,
  payload: unknown,
): Step {
  return {
    conversationId,
    stepIndex: -1,
    state: 'DONE',
    type: 'command',
    command,
    raw: { step_index: -1, state: 'DONE', step_type: 'command', command: payload },
  };
}

/** Runs `cmd` as `turn` (whose `stopCommand` aborts `signal`); never throws past a start failure. */
export async function runCommandTurn(
  cmd: { name: string; args: string },
  turn: ActiveTurn,
  signal: AbortSignal,
  timeoutMs: number | undefined,
  c: CommandTurnContext,
): Promise<TurnResult> {
  const { tracker } = turn;
  const o = c.opts;
  const run = await runPrintCommand({
    binary: c.binary,
    env: c.env,
    cwd: o.cwd,
    command: cmd.args ? `/${cmd.name} ${cmd.args}` : `/${cmd.name}`,
    conversationId: c.conversationId,
    model: c.model,
    effort: o.effort,
    maxLineBytes: c.maxLineBytes,
    timeoutMs: timeoutMs ?? o.turnTimeoutMs ?? o.startTimeoutMs ?? 60_000,
    signal,
    onStderrLine: (line) => {
      tracker.stderrLines.push(line);
      callContained(c.logger, 'onStderr', o.onStderr, line);
    },
    onSpawn: (pid) => c.onSpawn(pid),
  });
  if (run.timedOut && !turn.requested) turn.requested = 'timeout';
  tracker.result = run.result;
  if (run.command) {
    tracker.command = run.command;
    turn.deliver(commandStep(c.conversationId, run.command, run.payload), c.logger);
    callContained(c.logger, 'onCommandResult', o.onCommandResult, run.payload ?? {});
  }
  return commandResult(run, turn, c.conversationId);
}

/** The `TurnResult` of a finished print-mode run. */
function commandResult(
  run: PrintCommandOutcome,
  turn: ActiveTurn,
  conversationId: string | undefined,
): TurnResult {
  const outcome = classifyTurn({
    result: run.result,
    exit: run.exit,
    stderrLines: turn.tracker.stderrLines,
    deniedActions: [],
    agentResponseError: undefined,
    requested: turn.requested,
    lineTooLong: false,
    command: run.command !== undefined,
  });
  const command = run.command ?? (run.result ? commandFromWire(run.result.command) : undefined);
  const turnResult: TurnResult = {
    status: outcome.status,
    text: resultFacts(run.result).response ?? '',
    usage: null,
    totalUsage: null,
    deniedActions: [],
    toolCalls: [],
    exitCode: run.exit.code,
    signal: run.exit.signal,
    stderrTail: run.stderrTail,
    result: run.result,
    structuredOutput: undefined,
    conversationId,
    durationMs: Date.now() - turn.tracker.startedAt,
    errorMessage: outcome.message,
  };
  if (command) turnResult.command = command;
  if (outcome.status !== 'success') {
    turnResult.error = new ProcessExitError(outcome.message || 'the slash command failed', {
      exitCode: run.exit.code,
      signal: run.exit.signal,
      stderrTail: run.stderrTail,
    });
  }
  return turnResult;
}
