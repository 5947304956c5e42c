/**
 * A ready-made y/n approval prompt for CLIs and REPLs. Each question opens its own readline interface and
 * closes it afterwards, so nothing keeps stdin (and the process) alive between asks.
 */
import { createInterface } from 'node:readline/promises';
import type { HookToolCall } from '../hooks/types.js';
import type { AskUserAnswer, AskUserContext, AskUserHandler } from './types.js';

/** Options for {@link terminalApproval}. */
export interface TerminalApprovalOptions {
  /** Where answers are read from; defaults to `process.stdin`. */
  input?: NodeJS.ReadableStream;
  /** Where the prompt is written; defaults to `process.stdout`. */
  output?: NodeJS.WritableStream;
  /** Longest rendering of the args before it is cut (default 2000 characters). */
  maxArgsLength?: number;
}

/**
 * Returns an {@link AskUserHandler} that prints the tool and its args and asks `Allow? [y/N]`.
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
  call: HookToolCall,
  ctx: AskUserContext,
  input: NodeJS.ReadableStream,
  output: NodeJS.WritableStream,
  maxArgsLength: number,
): Promise<AskUserAnswer> {
  // Queued behind a slow ask, this one may already have expired: do not prompt for it.
  if (ctx.signal.aborted)
    return { allow: false, message: 'the approval request expired before it was shown' };
  const tool = call.server ? `${call.server}/${call.name}` : call.name;
  let args = JSON.stringify(call.args) ?? '{}';
  if (args.length > maxArgsLength) args = `${args.slice(0, maxArgsLength)}… (${args.length} chars)`;
  const lines = [`\nApproval needed (policy '${ctx.policy}')`, `  tool: ${tool}`, `  args: ${args}`];
  if (ctx.reason) lines.push(`  why:  ${ctx.reason}`);
  output.write(`${lines.join('\n')}\n`);

  const rl = createInterface({ input, output });
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
