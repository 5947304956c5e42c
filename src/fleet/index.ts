/**
 * `agy-sdk/fleet`: agent jobs across machines on BullMQ and Redis. `createFleetQueue` enqueues jobs and follows
 * their progress; `createFleetWorker` runs them on an `AgentPool` whose rate-limit pauses and conversation ids
 * are shared through Redis. Needs the optional peers `bullmq` and `ioredis` (`npm install bullmq ioredis`);
 * they are loaded when a queue or a worker is created, and a missing one rejects with `MissingPeerError`. The
 * package root never loads them.
 */
import { loadWithPeers } from './peers.js';
import type { FleetQueue, FleetQueueOptions } from './queue.js';
import type { FleetWorker, FleetWorkerOptions } from './worker.js';

// A queue or a worker that cannot reach Redis. (A missing `bullmq` or `ioredis` is the root's `MissingPeerError`.)
export { RedisUnavailableError } from '../errors.js';
export type { FleetAddOptions, FleetJobHandle, FleetQueue, FleetQueueOptions } from './queue.js';
export type { FleetConnection, FleetLocation, FleetRedisOptions } from './redis.js';
export type {
  FleetConversationState,
  FleetEvent,
  FleetJob,
  FleetResult,
  FleetTurnConfig,
} from './types.js';
export type { FleetWorker, FleetWorkerOptions } from './worker.js';

/**
 * Connects to a fleet's queue. Resolves once the progress subscription is live (events are read from the
 * stream position at that moment, so a job added afterwards loses none). Rejects with `MissingPeerError` when
 * `bullmq` or `ioredis` is not installed.
 */
export async function createFleetQueue(options: FleetQueueOptions): Promise<FleetQueue> {
  const { createFleetQueue: create } = await loadWithPeers(() => import('./queue.js'));
  return create(options);
}

/**
 * Starts a worker; resolves once it is connected and taking jobs. Rejects with `MissingPeerError` when
 * `bullmq` or `ioredis` is not installed.
 */
export async function createFleetWorker(options: FleetWorkerOptions): Promise<FleetWorker> {
  const { createFleetWorker: create } = await loadWithPeers(() => import('./worker.js'));
  return create(options);
}
