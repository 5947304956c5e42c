/**
 * Runs a real agy capture through the real Agent and spawn path, with test/fixtures/replay-agy.mjs as agy.
 */
import { join, resolve } from 'node:path';
import { afterAll, afterEach } from 'vitest';
import { Agent } from '../../src/agent/agent.js';
import type { Step, ToolCall } from '../../src/model/step.js';
import type { TurnResult } from '../../src/model/turn-result.js';
import { collect } from './agents.js';
import { AGY_REAL, type Capture, isScript } from './captures.js';
import { type Sandbox, sandbox } from './sandbox.js';

/** The replaying fake agy. */
export const REPLAY_AGY = resolve(import.meta.dirname, '../fixtures/replay-agy.mjs');
/** The replaying fake agy for `.script` captures. */
export const REPLAY_SCRIPT_AGY = resolve(import.meta.dirname, '../fixtures/replay-script-agy.mjs');

export interface Replayed {
  result: TurnResult;
  steps: Step[];
  toolResults: ToolCall[];
  agent: Agent;
}

export type ReplayFn = (
  capture: Pick<Capture, 'stdout' | 'stderr' | 'exit'>,
  env?: Record<string, string>,
) => Promise<Replayed>;

/**
 * A replay function whose agents and sandboxes are closed after each test, or, with `shared`, after the file:
 * then each capture (with the same stderr, exit code and env) is replayed once and every test asking for it
 * reads that one run, since a replay is deterministic and the tests only read its outcome.
 */
export function useReplay(opts: { shared?: boolean } = {}): ReplayFn {
  const open: { agent: Agent; box: Sandbox }[] = [];
  const closeAll = async () => {
    for (const { agent, box } of open.splice(0)) {
      await agent.close();
      await box.cleanup();
    }
  };
  if (!opts.shared) {
    afterEach(closeAll);
    return (capture, env = {}) => replayOnce(capture, env, open);
  }
  afterAll(closeAll);
  const runs = new Map<string, Promise<Replayed>>();
  return (capture, env = {}) => {
    const key = JSON.stringify([capture.stdout, capture.stderr, capture.exit, env]);
    let run = runs.get(key);
    if (!run) {
      run = replayOnce(capture, env, open);
      runs.set(key, run);
    }
    return run;
  };
}

async function replayOnce(
  capture: Pick<Capture, 'stdout' | 'stderr' | 'exit'>,
  env: Record<string, string>,
  open: { agent: Agent; box: Sandbox }[],
): Promise<Replayed> {
  const box = await sandbox();
  const agent = new Agent(await box.agentConfig(undefined, replayConfig(capture, env)));
  open.push({ agent, box });
  const response = await agent.chat('replay');
  const [result, steps, toolResults] = await Promise.all([
    response.result(),
    collect(response.steps()),
    collect(response.toolResults()),
  ]);
  return { result, steps, toolResults, agent };
}

/** The Agent config fields that make `capture` the agy the Agent runs. */
export function replayConfig(
  capture: Pick<Capture, 'stdout' | 'stderr' | 'exit'>,
  env: Record<string, string> = {},
): { agyPath: string; env: Record<string, string> } {
  if (isScript(capture.stdout)) {
    return { agyPath: REPLAY_SCRIPT_AGY, env: { REPLAY_SCRIPT: join(AGY_REAL, capture.stdout), ...env } };
  }
  return {
    agyPath: REPLAY_AGY,
    env: {
      REPLAY_STDOUT: join(AGY_REAL, capture.stdout),
      ...(capture.stderr && { REPLAY_STDERR: join(AGY_REAL, capture.stderr) }),
      ...(capture.exit !== undefined && { REPLAY_EXIT: String(capture.exit) }),
      ...env,
    },
  };
}
