/**
 * A ready-made y/n approval prompt for CLIs and REPLs. Each question opens its own readline interface and
 * closes it afterwards, so nothing keeps stdin (and the process) alive between asks.
 */
import type { ToolInvocation } from '../../hooks/types.js';
import { terminalSafe } from '../../internal/terminal-text.js';
import { describeToolCall } from './describe-call.js';
import type { AskUserAnswer, AskUserContext, AskUserHandler } from './types.js';

/** Options for {@link terminalApproval}. */
export interface TerminalApprovalOptions {
  /** Where answers are read from; defaults to `process.stdin`. */
  input?: NodeJS.ReadableStream;
  /** Where the prompt is written; defaults to `process.stdout`. */
  output?: NodeJS.WritableStream;
  /** Longest rendering of one detail (the command line, the args) before it is cut (default 2000 characters). */
  maxArgsLength?: number;
}

/**
 * Returns an {@link AskUserHandler} that prints what the call will do and asks `Allow? [y/N]`: the command
 * line (and its directory) for `run_command`, the file and a change summary for file writes, otherwise the
 * model's arguments, never agy's own bookkeeping keys; all of it with terminal control sequences removed.
 * The answer is echoed once: by the terminal when `input` is one, not again by this prompt.
 * `y`/`yes` (any case) allows; anything else, end of input, or the ask expiring denies.
 * Concurrent asks are queued so prompts never interleave.
 */
export function terminalApproval(options: TerminalApprovalOptions = {}): AskUserHandler {
  const input = options.input ?? process.stdin;
  const output = options.output ?? process.stdout;
  const maxArgsLength = options.maxArgsLength ?? 2000;
  let queue: Promise<unknown> = Promise.resolve();
  return (call, ctx) => {
    const turn = queue.then(() => ask(call, ctx, input, output, maxArgsLength));
    queue = turn.catch(() => {}); // a failed ask must not block the next; the caller sees the failure
    return turn;
  };
}

async function ask(
  call: ToolInvocation,
  ctx: AskUserContext,
  input: NodeJS.ReadableStream,
  output: NodeJS.WritableStream,
  maxArgsLength: number,
): Promise<AskUserAnswer> {
  // Queued behind a slow ask, this one may already have expired: do not prompt for it.
  if (ctx.signal.aborted)
    return { allow: false, message: 'the approval request expired before it was shown' };
  const tool = terminalSafe(call.server ? `${call.server}/${call.name}` : call.name);
  const lines = [`\nApproval needed (policy '${terminalSafe(ctx.policy)}')`, `  tool:    ${tool}`];
  for (const d of describeToolCall(call, maxArgsLength))
    lines.push(`  ${`${d.label}:`.padEnd(8)} ${d.value}`);
  if (ctx.reason) lines.push(`  why:     ${terminalSafe(ctx.reason)}`);
  output.write(`${lines.join('\n')}\n`);

  // Only a terminal input is echoed: a piped or relayed one (a REPL feeding its own lines) was echoed already.
  const terminal =
    (input as { isTTY?: boolean }).isTTY === true && (output as { isTTY?: boolean }).isTTY === true;
  // readline loads with the first question, not with the package.
  const { createInterface } = await import('node:readline/promises');
  const rl = createInterface({ input, output, terminal });
  // readline never settles a pending question at end of input; treat EOF as "no".
  const closed = new Promise<null>((resolve) => rl.once('close', () => resolve(null)));
  try {
    const answer = await Promise.race([rl.question('Allow? [y/N] ', { signal: ctx.signal }), closed]);
    if (answer !== null && /^(y|yes)$/i.test(answer.trim())) return { allow: true };
    return {
      allow: false,
      message: answer === null ? 'no answer (input closed)' : 'denied by the user at the terminal',
    };
  } catch (error) {
    if (ctx.signal.aborted) {
      output.write('\n(no answer in time: denied)\n');
      return { allow: false, message: 'no answer in time' };
    }
    throw error;
  } finally {
    rl.close();
  }
}
