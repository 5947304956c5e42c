/** What the pool keeps of a live agent and of a run waiting for one. */

import type { Agent } from '../agent/agent.js';
import type { AgentConfig } from '../agent/config.js';
import type { Content } from '../content/content.js';
import type { ChatResponse } from '../conversation/chat-response.js';
import type { PoolRunOptions } from './types.js';

/** One live agent and what the pool knows of it. */
export interface Slot {
  agent: Agent | undefined;
  /** Its key; undefined for a warm agent not handed out yet. */
  key: string | undefined;
  state: 'starting' | 'idle' | 'busy';
  lastUsed: number;
  /** The conversation it was started to resume. */
  resumedFrom: string | undefined;
  turns: number;
}

/** A slot with no turn yet. */
export function newSlot(agent: Agent | undefined, key: string | undefined): Slot {
  return { agent, key, state: 'starting', lastUsed: Date.now(), resumedFrom: undefined, turns: 0 };
}

/** A run waiting for an agent. */
export interface Waiting {
  key: string;
  prompt: Content;
  options: PoolRunOptions;
  config: AgentConfig;
  model: string;
  enqueuedAt: number;
  resolve(response: ChatResponse): void;
  reject(err: unknown): void;
  /** Removes the queued-abort listener once the run leaves the queue. */
  detach(): void;
}
