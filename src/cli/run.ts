/** `agy-sdk run "<prompt>"`: one streamed turn; the exit code says how it ended (see `exit-codes.ts`). */
import { Agent } from '../index.js';
import { type AgentFlags, setupAgent } from './agent-setup.js';
import { cliLogger } from './cli-logger.js';
import { exitCodeFor, TURN_EXIT_CODES } from './exit-codes.js';
import { reportFailure } from './failure.js';
import { guardInterrupts } from './interrupts.js';
import { pickRenderer } from './render/pick.js';
import type { RenderStreams } from './render/renderer.js';
import { STARTING_LABEL } from './render/tty.js';
import { renderTurn } from './turn.js';

/** `run`'s flags. */
export interface RunFlags extends AgentFlags {
  /** `--json`: NDJSON events on stdout. */
  json?: boolean;
}

/** Runs one turn; resolves to the exit code. Everything it started is closed before it resolves. */
export async function runCommand(
  prompt: string,
  flags: RunFlags,
  streams: RenderStreams = { out: process.stdout, err: process.stderr },
): Promise<number> {
  const renderer = pickRenderer(
    { json: flags.json === true, streamText: flags.schema === undefined },
    streams,
  );
  // Starting agy takes seconds (its init, a gateway): the spinner shows from the first moment.
  renderer.wait(STARTING_LABEL);
  let setup: Awaited<ReturnType<typeof setupAgent>>;
  try {
    // The SDK's warnings go through the renderer, so they never land inside its spinner line.
    setup = await setupAgent(flags, { logger: cliLogger({ line: (text) => renderer.note(text) }) });
  } catch (error) {
    renderer.dispose();
    return reportFailure(error, streams.err);
  }
  let agent: Agent | undefined;
  let guard: ReturnType<typeof guardInterrupts> | undefined;
  try {
    agent = new Agent(setup.config);
    guard = guardInterrupts(agent, (message) => renderer.note(message));
    await agent.start();
    guard.turnStarted();
    const result = await renderTurn(agent, prompt, renderer, { showStructured: flags.schema !== undefined });
    return exitCodeFor(result.status);
  } catch (error) {
    renderer.dispose();
    // A signal during start closes the agent, which fails the start: that is an interrupt, not an error.
    if (guard?.interrupted) return TURN_EXIT_CODES.interrupted;
    return reportFailure(error, streams.err);
  } finally {
    guard?.dispose();
    renderer.dispose();
    await agent?.close();
    await setup.close();
  }
}
