/** The public shapes of an `AgentPool`: its options, its gauges and its events. */

import type { ChatOptions } from '../agent/agent.js';
import type { AgentConfig } from '../agent/config.js';
import type { Logger } from '../logger.js';
import type { TurnResult } from '../model/turn-result.js';
import type { TelemetryConfig } from '../telemetry/telemetry-config.js';
import type { ConversationStore } from './conversation-store.js';
import type { BackoffOptions, PauseStore } from './pause-store.js';

/** Options of an `AgentPool`. */
export interface AgentPoolOptions {
  /** How many agents may live at once (each one agy process); also the most turns running at once. */
  size: number;
  /**
   * The most turns waiting for an agent. Past it `run` rejects at once with `QueueFullError`.
   * Default 10,000.
   */
  maxQueue?: number | undefined;
  /**
   * The agents' configuration: one config for every key, or a function building a key's config (called once
   * per key and agent). A key's `conversationId` is set by the pool when it resumes one.
   */
  agent: AgentConfig | ((key: string) => AgentConfig);
  /**
   * How many agents `start()` launches ahead of demand (at most `size`); each later takes the first new key.
   * Only with a plain config object (a function's config depends on the key). Default 0.
   */
  warm?: number | undefined;
  /** The back-off when a rate-limited turn states no reset time (jittered exponential). */
  backoff?: BackoffOptions | undefined;
  /** Where rate-limit pauses live. Default: this process's memory; a fleet passes a Redis-backed store. */
  pauses?: PauseStore | undefined;
  /** Where each key's conversation id is kept for resuming. Default: this process's memory. */
  conversations?: ConversationStore | undefined;
  /**
   * Called with fresh gauges whenever they change (coalesced to once per tick), for your own metrics or logs
   * (OpenTelemetry ones are built in: `telemetry`). `pool.stats` reads the same figures on demand.
   */
  onStats?: ((stats: PoolStats) => void) | undefined;
  /**
   * The pool's own OpenTelemetry metrics (docs/observability.md#pool-metrics): gauges `agy_sdk.pool.busy`,
   * `.idle`, `.queued`, `.paused` and histograms of queue waits and agent starts. Like the Agent's option:
   * needs `@opentelemetry/api`; goes to the globally registered meter provider (looked up at the first
   * `start()` or `run()`) or to `meterProvider`; `enabled: false` turns it off. Without the API or a provider
   * nothing is recorded. The agents' own spans and metrics follow their `AgentConfig.telemetry`.
   */
  telemetry?: PoolTelemetryConfig | undefined;
  /** Called for each notable pool event (agent started, evicted, crashed; a model paused). */
  onEvent?: ((event: PoolEvent) => void) | undefined;
  /** Where contained failures are reported (a throwing `onStats`/`onEvent`, a failed close). Default the console. */
  logger?: Logger | undefined;
}

/** `AgentPoolOptions.telemetry`: the metrics half of the Agent's `TelemetryConfig` (a pool has no spans). */
export type PoolTelemetryConfig = Pick<TelemetryConfig, 'enabled' | 'meterProvider'>;

/** What a run learns when its turn is handed to an agent. */
export interface PoolAdmission {
  /** The run's key. */
  key: string;
  /** The agent's conversation id. */
  conversationId: string | undefined;
  /** The conversation id the agent was started to resume, when it was a replacement for an evicted or crashed one. */
  resumedFrom: string | undefined;
  /** True when this is the first turn of the agent (a new or resumed one). */
  firstTurn: boolean;
  /** How long the run waited in the queue, in ms. */
  queuedMs: number;
  /** How long the agent took to start for this run, in ms; undefined when it was already running. */
  startMs: number | undefined;
  /** The agy process id, when the agent runs on agy. */
  pid: number | undefined;
}

/** Options of one `pool.run`: the Agent's per-turn options, plus the pool's. */
export interface PoolRunOptions extends ChatOptions {
  /**
   * Aborting it while the run waits in the queue removes it (`run` rejects with `QueuedWorkAbortedError`);
   * once it runs, the turn is canceled as `agent.chat` does (it ends `canceled`).
   */
  signal?: AbortSignal | undefined;
  /** Called when the turn is handed to its agent, before it is sent. */
  onAdmitted?: ((admission: PoolAdmission) => void) | undefined;
}

/** Agent start times, in ms. */
export interface PoolStartLatency {
  /** Agents started (warm, cold and resumed). */
  count: number;
  /** The last start. */
  lastMs: number;
  /** The mean over every start. */
  meanMs: number;
  /** The slowest start. */
  maxMs: number;
}

/** A paused model. */
export interface PoolPause {
  /** The `provider:model` key. */
  model: string;
  /** Until when (epoch ms). */
  untilMs: number;
}

/** The pool's gauges and counters. */
export interface PoolStats {
  /** The configured size. */
  size: number;
  /** Agents running a turn (or starting for one). */
  busy: number;
  /** Live agents with no turn. */
  idle: number;
  /** Runs waiting for an agent. */
  queued: number;
  /** Models paused by a rate limit right now (the count of `pausedModels`). */
  paused: number;
  /** Which models are paused, and until when. */
  pausedModels: PoolPause[];
  /** Turns finished through the pool, any status. */
  turns: number;
  /** Turns that ended `rate_limited` or `quota_exhausted`. */
  rateLimited: number;
  /** Agents closed to make room for another key. */
  evicted: number;
  /** Agents retired because their agy died during a turn or failed. */
  crashed: number;
  /** Agent starts: cold (for a key), warm (ahead of demand), resumed (on a recorded conversation id). */
  starts: {
    /** Started for a key with no recorded conversation. */
    cold: number;
    /** Started by `start()`, ahead of demand. */
    warm: number;
    /** Started to resume a key's recorded conversation (after an eviction or a crash). */
    resumed: number;
  };
  /** Start latency over every agent start. */
  startLatency: PoolStartLatency;
}

/** A notable pool event. */
export type PoolEvent =
  | {
      /** An agent finished starting. */
      type: 'agent_started';
      /** Its key; undefined for a warm agent not yet given one. */
      key: string | undefined;
      /** How long its start took, in ms. */
      ms: number;
      /** Why it started. */
      reason: 'warm' | 'cold' | 'resumed';
      /** Its conversation id. */
      conversationId: string | undefined;
    }
  | {
      /** An idle agent was closed to make room; its key resumes on its conversation next time. */
      type: 'agent_evicted';
      /** Its key. */
      key: string | undefined;
      /** Its conversation id. */
      conversationId: string | undefined;
    }
  | {
      /** An agent was retired: its agy died during a turn, or it failed. */
      type: 'agent_crashed';
      /** Its key. */
      key: string;
      /** Its conversation id. */
      conversationId: string | undefined;
      /** Why. */
      reason: string;
    }
  | {
      /** A turn hit a rate limit: new turns for the model wait until `untilMs`. */
      type: 'model_paused';
      /** The `provider:model` key. */
      model: string;
      /** Until when (epoch ms). */
      untilMs: number;
      /** Where the time came from: the turn's stated reset time, or the pool's jittered back-off. */
      source: 'reset_time' | 'backoff';
      /** The turn's result. */
      result: TurnResult;
    };
