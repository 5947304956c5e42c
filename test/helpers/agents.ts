/**
 * Per-test sandbox and agent bookkeeping for integration tests: a fresh private sandbox before each test,
 * and every agent created through `agentWith` closed (and the sandbox removed) after it.
 */
import { afterEach, beforeEach } from 'vitest';
import { Agent } from '../../src/agent/agent.js';
import type { AgentConfig } from '../../src/agent/config.js';
import type { ChatResponse } from '../../src/conversation/chat-response.js';
import type { ToolCall } from '../../src/model/step.js';
import type { Scenario } from '../../src/testing/simulator/scenario.js';
import { type Sandbox, sandbox } from './sandbox.js';

export interface SandboxAgents {
  /** The current test's sandbox. */
  readonly box: Sandbox;
  /** An Agent on the simulator with `scenario`, closed after the test. */
  agentWith(scenario?: Scenario, extra?: AgentConfig): Promise<Agent>;
}

export function useSandboxAgents(): SandboxAgents {
  let box: Sandbox | undefined;
  const agents: Agent[] = [];
  beforeEach(async () => {
    box = await sandbox();
  });
  afterEach(async () => {
    await Promise.all(agents.splice(0).map((a) => a.close()));
    await box?.cleanup();
  });
  return {
    get box(): Sandbox {
      if (!box) throw new Error('no sandbox outside a test');
      return box;
    },
    async agentWith(scenario, extra) {
      const agent = new Agent(await this.box.agentConfig(scenario, extra));
      agents.push(agent);
      return agent;
    },
  };
}

/** Drains an async iterable. */
export async function collect<T>(iterable: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of iterable) out.push(item);
  return out;
}

/** Every finished tool call of a response. */
export function toolResults(response: ChatResponse): Promise<ToolCall[]> {
  return collect(response.toolResults());
}
