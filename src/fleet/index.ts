/**
 * `agy-sdk/fleet`: agent jobs across machines on BullMQ and Redis. `createFleetQueue` enqueues jobs and follows
 * their progress; `createFleetWorker` runs them on an `AgentPool` whose rate-limit pauses and conversation ids
 * are shared through Redis. Needs the optional peers `bullmq` and `ioredis`; the package root never loads them.
 */

export {
  createFleetQueue,
  type FleetAddOptions,
  type FleetJobHandle,
  type FleetQueue,
  type FleetQueueOptions,
} from './queue.js';
export type { FleetConnection, FleetLocation, FleetRedisOptions } from './redis.js';
export type {
  FleetConversationState,
  FleetEvent,
  FleetJob,
  FleetResult,
  FleetTurnConfig,
} from './types.js';
export { createFleetWorker, type FleetWorker, type FleetWorkerOptions } from './worker.js';
