/**
 * Runs a real agy capture through the real Agent and spawn path, with test/fixtures/replay-agy.mjs as agy.
 */
import { join, resolve } from 'node:path';
import { afterEach } from 'vitest';
import { Agent } from '../../src/agent/agent.js';
import type { Step, ToolCall } from '../../src/model/step.js';
import type { TurnResult } from '../../src/model/turn-result.js';
import { collect } from '../helpers/agents.js';
import { type Sandbox, sandbox } from '../helpers/sandbox.js';
import { AGY_REAL, type Capture } from './captures.js';

/** The replaying fake agy. */
export const REPLAY_AGY = resolve(import.meta.dirname, '../fixtures/replay-agy.mjs');

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

/** A replay function whose agents and sandboxes are closed after each test. */
export function useReplay(): ReplayFn {
  const open: { agent: Agent; box: Sandbox }[] = [];
  afterEach(async () => {
    for (const { agent, box } of open.splice(0)) {
      await agent.close();
      await box.cleanup();
    }
  });
  return async (capture, env = {}) => {
    const box = await sandbox();
    const agent = new Agent(
      await box.agentConfig(undefined, {
        agyPath: REPLAY_AGY,
        env: {
          REPLAY_STDOUT: join(AGY_REAL, capture.stdout),
          ...(capture.stderr && { REPLAY_STDERR: join(AGY_REAL, capture.stderr) }),
          ...(capture.exit !== undefined && { REPLAY_EXIT: String(capture.exit) }),
          ...env,
        },
      }),
    );
    open.push({ agent, box });
    const response = await agent.chat('replay');
    const [result, steps, toolResults] = await Promise.all([
      response.result(),
      collect(response.steps()),
      collect(response.toolResults()),
    ]);
    return { result, steps, toolResults, agent };
  };
}
