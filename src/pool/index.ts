/**
 * `agy-sdk/pool`: many conversations on one machine. An `AgentPool` runs turns over a bounded set of agents
 * (one per model), queues the rest fairly, pauses on rate limits and keeps conversation ids in a store. The
 * fleet across machines (`agy-sdk/fleet`) runs on it. Every export is public API.
 */

export { QueuedWorkAbortedError, QueueFullError } from '../errors.js';
export { AgentPool } from './agent-pool.js';
export { type ConversationStore, MemoryConversationStore } from './conversation-store.js';
export { type BackoffOptions, MemoryPauseStore, type PauseStore } from './pause-store.js';
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
