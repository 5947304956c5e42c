/** The fleet's job, result and progress shapes: plain JSON, stored by BullMQ in Redis. */

import type { JsonSchema } from '../model/response-schema.js';
import type { Usage } from '../model/step.js';
import type { TurnStatus } from '../model/turn-result.js';

/**
 * One agent turn to run somewhere in the fleet. Only data travels: the agent's configuration (model, tools,
 * hooks, policies — code) is the worker's pool config, so every worker must run the same one.
 */
export interface FleetJob {
  /** The conversation key: the same key continues the same conversation, on whichever worker runs it. */
  key: string;
  /** The prompt (text). */
  prompt: string;
  /** Per-turn options. */
  config?: FleetTurnConfig | undefined;
}

/** Per-turn options of a fleet job. */
export interface FleetTurnConfig {
  /** A time limit for this turn, in ms. */
  turnTimeoutMs?: number | undefined;
  /** A JSON Schema for this turn's structured output. */
  responseSchema?: JsonSchema | undefined;
}

/** How the job's conversation was found by the worker that finished it. */
export type FleetConversationState =
  /** The key had no conversation yet: a new one was started. */
  | 'new'
  /** The worker's agent for the key was alive and continued it. */
  | 'continued'
  /** A new agent resumed the key's recorded conversation (agy confirmed the resume). */
  | 'resumed'
  /**
   * The key had a recorded conversation, but this worker's agy could not find it (its conversation store is
   * not shared with the worker that ran it before): the conversation restarted empty (agy 1.3.x under a fresh
   * id, the result's `conversationId`, which the key follows from then on).
   */
  | 'restarted';

/** What a finished job stores (BullMQ's return value) and `FleetJobHandle.result()` resolves with. */
export interface FleetResult {
  /** The turn's status. */
  status: TurnStatus;
  /** The turn's text. */
  text: string;
  /** The turn's usage, when known (its `costUsd` included). */
  usage: Usage | null;
  /**
   * The turn's cost in USD (`usage.costUsd`, priced by the worker's agent config and its `pricing`); `null` when
   * a price it needs is unknown or the turn reported no usage, never a made-up 0.
   */
  costUsd: number | null;
  /** The structured output, when the job asked for one and the turn succeeded. */
  structuredOutput?: unknown;
  /** The conversation the turn ran in. */
  conversationId: string | undefined;
  /** How the conversation was found. */
  conversation: FleetConversationState;
  /** The worker that ran the turn. */
  workerId: string;
  /** Why the turn did not succeed (empty on success). */
  errorMessage: string;
  /** With `rate_limited`/`quota_exhausted` after the retries ran out: the stated delay, in ms. */
  retryAfterMs?: number;
}

/** A progress event of a job, in the order the worker wrote it. */
export type FleetEvent =
  | {
      /** A worker handed the turn to an agent. */
      type: 'started';
      /** Position in this worker's run of the job, from 0. */
      seq: number;
      /** The worker. */
      workerId: string;
      /** The conversation id. */
      conversationId: string | undefined;
      /** The conversation the agent was started to resume, if any. */
      resumedFrom: string | undefined;
      /** The agy process, when the agent runs on agy. */
      pid: number | undefined;
    }
  | {
      /** Streamed text, batched (`progressBatchMs`). */
      type: 'text';
      /** Position in this worker's run of the job. */
      seq: number;
      /** The text since the previous `text` event. */
      text: string;
    }
  | {
      /** A tool call finished. */
      type: 'tool';
      /** Position in this worker's run of the job. */
      seq: number;
      /** The tool's name. */
      name: string;
      /** Its final state. */
      state: string;
    }
  | {
      /** The turn hit a rate limit: the job waits (delayed) until the model's pause ends, then runs again. */
      type: 'rate_limited';
      /** Position in this worker's run of the job. */
      seq: number;
      /** Until when (epoch ms). */
      untilMs: number;
    }
  | {
      /** The worker is shutting down and handed the job back to the queue. */
      type: 'handed_back';
      /** Position in this worker's run of the job. */
      seq: number;
      /** The worker. */
      workerId: string;
    }
  | {
      /** The turn ended; the result follows as the job's return value. */
      type: 'done';
      /** Position in this worker's run of the job. */
      seq: number;
      /** The turn's status. */
      status: TurnStatus;
      /** The turn's cost in USD, as in the result; `null` when unknown. */
      costUsd: number | null;
    };
