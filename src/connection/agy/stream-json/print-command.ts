/**
 * A slash command run the way agy answers it: a print-mode run `agy -p "/effort" --output-format stream-json`
 * (on the same conversation and model), answered with a `command_result` event and a `result` carrying the same
 * payload under `command`, no `init`, no steps (agy-real/littlebearapps-untether-agy-1.3.1/effort.script and
 * model.script; docs/reference/stream-json.md#slash-commands). The process runs under agy's supervisor like every
 * other agy process, and is stopped on the turn's stop or after `timeoutMs`.
 */
import type { CommandResult } from '../../../model/step.js';
import type { WireResult } from '../../../protocol/stream-json-wire.js';
import { AgentProcess, type ExitInfo } from '../../process/child-process.js';
import { LineSplitter } from '../../process/line-splitter.js';
import { parseLine } from './parse-line.js';

/** What a print-mode command run needs. */
export interface PrintCommandSpec {
  binary: string;
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** `/name args`. */
  command: string;
  conversationId?: string | undefined;
  model?: string | undefined;
  effort?: string | undefined;
  maxLineBytes: number;
  /** The run is killed after this long. */
  timeoutMs: number;
  /** Stops the run (the SDK's interrupt or cancel). */
  signal: AbortSignal;
  onStderrLine: (line: string) => void;
  onSpawn?: ((pid: number) => void) | undefined;
}

/** What the run wrote. */
export interface PrintCommandOutcome {
  result: WireResult | null;
  command: CommandResult | undefined;
  /** The `command_result` payload as sent. */
  payload: Record<string, unknown> | undefined;
  exit: ExitInfo;
  stderrTail: string;
  timedOut: boolean;
  /** stdout lines that were not agy events. */
  badLines: number;
}

/** The argv: `-p` takes the command as its own argument (`-p=` form, so it can never eat the next flag). */
export function printCommandArgs(
  spec: Pick<PrintCommandSpec, 'command' | 'conversationId' | 'model' | 'effort'>,
): string[] {
  const args = [`-p=${spec.command}`, '--output-format', 'stream-json'];
  if (spec.model) args.push('--model', spec.model);
  if (spec.effort) args.push('--effort', spec.effort);
  if (spec.conversationId) args.push('--conversation', spec.conversationId);
  return args;
}

/** Runs one print-mode slash command to its exit. Never throws for agy's own failures: they are in the outcome. */
export async function runPrintCommand(spec: PrintCommandSpec): Promise<PrintCommandOutcome> {
  let result: WireResult | null = null;
  let command: CommandResult | undefined;
  let payload: Record<string, unknown> | undefined;
  let badLines = 0;
  const onLine = (line: string) => {
    if (line.trim() === '') return;
    const parsed = parseLine(line);
    if (!parsed.ok) {
      badLines++;
      return;
    }
    const e = parsed.event;
    if (e.type === 'result') result = e.result;
    else if (e.type === 'command_result') {
      command = e.command;
      payload = e.payload;
    }
  };
  const splitter = new LineSplitter({
    maxLineBytes: spec.maxLineBytes,
    onLine,
    onOverflow: () => badLines++,
  });
  const proc = new AgentProcess({
    binary: spec.binary,
    args: printCommandArgs(spec),
    env: spec.env,
    cwd: spec.cwd,
    onStdout: (chunk) => splitter.push(chunk),
    onStdoutEnd: () => {
      const last = splitter.end();
      if (last !== undefined) onLine(last);
    },
    onStderrLine: spec.onStderrLine,
    onSpawn: spec.onSpawn,
  });
  proc.endStdin();
  let timedOut = false;
  const stop = () => proc.killTree();
  const timer = setTimeout(() => {
    timedOut = true;
    stop();
  }, spec.timeoutMs);
  if (spec.signal.aborted) stop();
  else spec.signal.addEventListener('abort', stop, { once: true });
  try {
    const exit = await proc.exited;
    return { result, command, payload, exit, stderrTail: proc.stderrTail, timedOut, badLines };
  } finally {
    clearTimeout(timer);
    spec.signal.removeEventListener('abort', stop);
  }
}
