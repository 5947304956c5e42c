/** The agent pool: many conversations on one machine (re-exported from the package root). */

export { AgentPool, DEFAULT_MAX_QUEUE, modelKey } from './agent-pool.js';
export { type ConversationStore, MemoryConversationStore } from './conversation-store.js';
export { type BackoffOptions, backoffMs, MemoryPauseStore, type PauseStore } from './pause-store.js';
export type {
  AgentPoolOptions,
  PoolAdmission,
  PoolEvent,
  PoolPause,
  PoolRunOptions,
  PoolStartLatency,
  PoolStats,
  PoolTelemetryConfig,
} from './types.js';
