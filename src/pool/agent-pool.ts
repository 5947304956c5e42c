/**
 * `AgentPool`: many conversations on one machine. Keys are sticky (one agent per key while it lives; an evicted
 * or crashed agent is resumed by conversation id), agents can be started ahead of demand, waiting work is
 * bounded and served round-robin across keys, and a rate limit on any turn pauses new turns for that
 * (provider, model) until the stated reset time or a jittered back-off.
 */

import { Agent } from '../agent/agent.js';
import type { AgentConfig } from '../agent/config.js';
import type { Content } from '../content/content.js';
import type { ChatResponse } from '../conversation/chat-response.js';
import { ClosedError, ConfigError, QueuedWorkAbortedError, QueueFullError } from '../errors.js';
import { consoleLogger, type Logger } from '../logger.js';
import type { TurnResult } from '../model/turn-result.js';
import { checkPoolOptions, checkRunOptions } from './check-options.js';
import { type ConversationStore, MemoryConversationStore } from './conversation-store.js';
import { FairQueue } from './fair-queue.js';
import { type BackoffOptions, backoffMs, MemoryPauseStore, type PauseStore } from './pause-store.js';
import { PoolCounters, type StartReason } from './pool-counters.js';
import { createPoolMetrics, type PoolMetrics } from './pool-metrics.js';
import { newSlot, type Slot, type Waiting } from './slot.js';
import type { AgentPoolOptions, PoolEvent, PoolRunOptions, PoolStats } from './types.js';
import { WakeTimer } from './wake-timer.js';

/** The default bound of waiting runs. */
export const DEFAULT_MAX_QUEUE = 10_000;

/**
 * The rate-limit key of a config: `provider:model`. Provider mode limits on the upstream's model; plain agy on
 * `--model` (`agy:default` without one), since agy's quota and 429s are per account and model.
 */
export function modelKey(config: AgentConfig): string {
  if (config.provider) return `${config.provider.kind}:${config.provider.model}`;
  return `agy:${config.model ?? 'default'}`;
}

/** A pool of agents, one per key, at most `size` alive. */
export class AgentPool implements AsyncDisposable {
  readonly #size: number;
  readonly #maxQueue: number;
  readonly #agentConfig: AgentPoolOptions['agent'];
  readonly #warmCount: number;
  readonly #backoff: BackoffOptions;
  readonly #pauses: PauseStore;
  readonly #conversations: ConversationStore;
  readonly #onStats: AgentPoolOptions['onStats'];
  readonly #onEvent: AgentPoolOptions['onEvent'];
  readonly #logger: Logger;
  readonly #telemetry: AgentPoolOptions['telemetry'];
  /** The OpenTelemetry setup, begun at the first `start()` or `run()`; settles with the metrics or nothing. */
  #metricsSetup: Promise<void> | undefined;
  /** Undefined while telemetry is off (or not set up yet): nothing is recorded. */
  #metrics: PoolMetrics | undefined;
  /** A setup failure (a meter provider without the API): later `start()` and `run()` calls reject with it. */
  #metricsError: unknown;
  readonly #queue = new FairQueue<Waiting>();
  /** Agents by key. */
  readonly #agents = new Map<string, Slot>();
  /** Warm agents not handed to a key yet. */
  readonly #warm: Slot[] = [];
  /** Closes in flight (evictions, retirements), awaited by `close()`. */
  readonly #closing = new Set<Promise<void>>();
  /** Consecutive rate limits per model, for the back-off. */
  readonly #strikes = new Map<string, number>();
  /** Every model the pool has seen, for the paused gauge. */
  readonly #models = new Set<string>();
  readonly #unsubscribe: (() => void) | undefined;
  readonly #wake = new WakeTimer(() => this.#pump());
  #closed = false;
  #closePromise: Promise<void> | undefined;
  #statsQueued = false;
  readonly #counters = new PoolCounters();

  /** Checks the options (throws `ConfigError` naming the field); nothing starts until `start()` or `run()`. */
  constructor(options: AgentPoolOptions) {
    checkPoolOptions(options);
    this.#size = options.size;
    this.#maxQueue = options.maxQueue ?? DEFAULT_MAX_QUEUE;
    this.#agentConfig = options.agent;
    this.#warmCount = options.warm ?? 0;
    this.#backoff = options.backoff ?? {};
    this.#pauses = options.pauses ?? new MemoryPauseStore();
    this.#conversations = options.conversations ?? new MemoryConversationStore();
    this.#onStats = options.onStats;
    this.#onEvent = options.onEvent;
    this.#logger = options.logger ?? consoleLogger;
    this.#telemetry = options.telemetry;
    // A pause set by another pool (another machine) may shorten nothing, but it must be seen: re-check.
    this.#unsubscribe = this.#pauses.subscribe?.(() => this.#pump());
  }

  /**
   * Starts the `warm` agents ahead of demand and resolves once they are up (each later takes the first key
   * the pool has no agent for). Rejects with the first start failure.
   */
  async start(): Promise<void> {
    if (this.#closed) throw new ClosedError('the pool is closed');
    await this.#setupMetrics();
    const missing = this.#warmCount - this.#warm.length;
    const starts: Promise<void>[] = [];
    for (let i = 0; i < missing && this.#live() < this.#size; i++) starts.push(this.#startWarm());
    await Promise.all(starts);
  }

  /**
   * Runs one turn of `key`'s conversation and resolves with its streamed `ChatResponse` once the turn is handed
   * to the key's agent (the same agent as the key's earlier turns while it lives). Waits in the queue while
   * every agent is busy or the model is paused. Rejects at once with `QueueFullError` past `maxQueue`, with
   * `QueuedWorkAbortedError` when `signal` aborts while it waits, with `ClosedError` once the pool closes, and
   * with the agent's own error when it cannot start.
   */
  run(key: string, prompt: Content, options: PoolRunOptions = {}): Promise<ChatResponse> {
    if (this.#closed) return Promise.reject(new ClosedError('the pool is closed'));
    if (this.#metricsError !== undefined) return Promise.reject(this.#metricsError);
    // Without awaiting: the run is not held up by the API's import; the gauges join when it is loaded.
    if (this.#metricsSetup === undefined)
      void this.#setupMetrics().catch((err: unknown) =>
        this.#logger.warn('pool: telemetry setup failed', err),
      );
    if (typeof key !== 'string' || key === '')
      return Promise.reject(new ConfigError('key', 'must be a non-empty string'));
    if (typeof options !== 'object' || options === null)
      return Promise.reject(new ConfigError('options', 'must be an object'));
    const { signal } = options;
    // Every option is checked before the run is queued: a bad one costs no agent (docs/pool-and-fleet.md).
    try {
      checkRunOptions(options);
    } catch (err) {
      return Promise.reject(err);
    }
    if (signal?.aborted) return Promise.reject(new QueuedWorkAbortedError(signal.reason));
    if (this.#queue.size >= this.#maxQueue) return Promise.reject(new QueueFullError(this.#maxQueue));
    let config: AgentConfig;
    try {
      config = this.#configFor(key);
    } catch (err) {
      return Promise.reject(err);
    }
    return new Promise<ChatResponse>((resolve, reject) => {
      const model = modelKey(config);
      this.#models.add(model);
      const onAbort = () => {
        if (this.#queue.remove(key, waiting)) {
          reject(new QueuedWorkAbortedError(signal?.reason));
          this.#statsChanged();
        }
      };
      const waiting: Waiting = {
        key,
        prompt,
        options,
        config,
        model,
        enqueuedAt: Date.now(),
        resolve,
        reject,
        detach: () => signal?.removeEventListener('abort', onAbort),
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#queue.push(key, waiting);
      this.#pump();
    });
  }

  /** The `provider:model` rate-limit key of `key`'s agents. */
  modelOf(key: string): string {
    return modelKey(this.#configFor(key));
  }

  /** The gauges (busy, idle, queued, paused) and counters, now. */
  get stats(): PoolStats {
    let busy = 0;
    let idle = 0;
    for (const slot of this.#agents.values()) slot.state === 'idle' ? idle++ : busy++;
    for (const slot of this.#warm) if (slot.state === 'idle') idle++;
    const now = Date.now();
    const pausedModels = [...this.#models]
      .map((model) => ({ model, untilMs: this.#pauses.pausedUntil(model) }))
      .filter((p) => p.untilMs > now);
    return {
      size: this.#size,
      busy,
      idle,
      queued: this.#queue.size,
      paused: pausedModels.length,
      pausedModels,
      ...this.#counters.snapshot(),
    };
  }

  /**
   * Closes the pool: waiting runs reject with `ClosedError`, running turns end `canceled`, every agent is
   * closed (agy processes and session directories gone). Idempotent.
   */
  close(): Promise<void> {
    this.#closePromise ??= (async () => {
      this.#closed = true;
      this.#wake.cancel();
      this.#unsubscribe?.();
      this.#metrics?.close();
      this.#metrics = undefined;
      for (const waiting of this.#queue.drain()) {
        waiting.detach();
        waiting.reject(new ClosedError('the pool was closed'));
      }
      const slots = [...this.#agents.values(), ...this.#warm];
      this.#agents.clear();
      this.#warm.length = 0;
      await Promise.all(slots.map((slot) => slot.agent?.close()));
      while (this.#closing.size) await Promise.all([...this.#closing]);
      this.#statsChanged();
    })();
    return this.#closePromise;
  }

  /** Same as `close()`, for `await using pool = new AgentPool(…)`. */
  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  /** Creates the pool's metrics once; rejects with the setup's error (then kept for later calls). */
  #setupMetrics(): Promise<void> {
    if (this.#telemetry?.enabled === false) {
      this.#metricsSetup ??= Promise.resolve();
      return this.#metricsSetup;
    }
    this.#metricsSetup ??= createPoolMetrics(this.#telemetry, () => this.stats).then(
      (metrics) => {
        // A pool closed while the API loaded registers nothing.
        if (this.#closed) metrics?.close();
        else this.#metrics = metrics;
      },
      (err: unknown) => {
        this.#metricsError = err;
        throw err;
      },
    );
    return this.#metricsSetup;
  }

  #configFor(key: string): AgentConfig {
    const config = typeof this.#agentConfig === 'function' ? this.#agentConfig(key) : this.#agentConfig;
    if (typeof config !== 'object' || config === null)
      throw new ConfigError('agent', `the agent function returned no config for key ${JSON.stringify(key)}`);
    return config;
  }

  #live(): number {
    return this.#agents.size + this.#warm.length;
  }

  /** True when a key with no agent can get one now: room to start one, or an idle agent to take or evict. */
  #hasRoom(): boolean {
    if (this.#live() < this.#size) return true;
    if (this.#warm.some((s) => s.state === 'idle')) return true;
    for (const slot of this.#agents.values()) if (slot.state === 'idle') return true;
    return false;
  }

  /** Hands every admissible waiting run to an agent, then sleeps until the earliest pause ends. */
  #pump(): void {
    if (this.#closed) return;
    for (;;) {
      const now = Date.now();
      const taken = this.#queue.take((key, waiting) => {
        if (this.#pauses.pausedUntil(waiting.model) > now) return false;
        const own = this.#agents.get(key);
        return own ? own.state === 'idle' : this.#hasRoom();
      });
      if (!taken) break;
      taken.item.detach();
      this.#dispatch(taken.item);
    }
    this.#armWake();
    this.#statsChanged();
  }

  #armWake(): void {
    const now = Date.now();
    let earliest = Number.POSITIVE_INFINITY;
    for (const head of this.#queue.heads()) {
      const until = this.#pauses.pausedUntil(head.model);
      if (until > now) earliest = Math.min(earliest, until);
    }
    this.#wake.arm(earliest, now);
  }

  /** Reserves an agent for `waiting` (its own, a warm one, a new one, evicting the least recently used idle one). */
  #dispatch(waiting: Waiting): void {
    // The time in the queue only; the agent's start, if any, is the start histogram's.
    this.#metrics?.queueWait(Date.now() - waiting.enqueuedAt);
    let slot = this.#agents.get(waiting.key);
    if (slot) slot.state = 'busy';
    else {
      const warmAt = this.#warm.findIndex((s) => s.state === 'idle');
      if (warmAt >= 0 && typeof this.#agentConfig !== 'function') {
        slot = this.#warm.splice(warmAt, 1)[0]!;
        slot.key = waiting.key;
        slot.state = 'busy';
      } else {
        if (this.#live() >= this.#size) this.#evictOne();
        slot = newSlot(undefined, waiting.key);
      }
      this.#agents.set(waiting.key, slot);
    }
    void this.#run(slot, waiting);
  }

  async #run(slot: Slot, waiting: Waiting): Promise<void> {
    let handed = false;
    let chatting = false;
    try {
      let startMs: number | undefined;
      const resumeId = slot.turns === 0 ? await this.#conversations.get(waiting.key) : undefined;
      if (slot.agent && resumeId !== undefined && slot.turns === 0) {
        // A warm agent holds a fresh conversation; this key has one to resume, so it needs its own agent.
        this.#closeInBackground(slot.agent);
        slot.agent = undefined;
      }
      if (!slot.agent) {
        slot.state = 'starting';
        slot.resumedFrom = resumeId;
        const agent = new Agent(
          resumeId === undefined ? waiting.config : { ...waiting.config, conversationId: resumeId },
        );
        slot.agent = agent;
        startMs = await this.#startAgent(slot, agent, resumeId === undefined ? 'cold' : 'resumed');
        slot.state = 'busy';
      }
      if (this.#closed) throw new ClosedError('the pool was closed');
      const agent = slot.agent;
      // A warm agent started with no key: its conversation becomes this key's now, so that an eviction or a
      // crash resumes it like any other (the id is recorded by #startAgent only for an agent started for a key).
      if (startMs === undefined && slot.turns === 0 && agent.conversationId !== undefined)
        await this.#conversations.set(waiting.key, agent.conversationId);
      const { onAdmitted, signal, turnTimeoutMs, responseSchema } = waiting.options;
      try {
        onAdmitted?.({
          key: waiting.key,
          conversationId: agent.conversationId,
          resumedFrom: slot.resumedFrom,
          firstTurn: slot.turns === 0,
          queuedMs: Date.now() - waiting.enqueuedAt,
          startMs,
          pid: agent.pid,
        });
      } catch (err) {
        // The caller's callback: its failure is reported, and neither the turn nor the agent pays for it.
        this.#logger.warn('pool: onAdmitted threw', err);
      }
      slot.turns++;
      chatting = true;
      const response = await agent.chat(waiting.prompt, { signal, turnTimeoutMs, responseSchema });
      chatting = false;
      handed = true;
      waiting.resolve(response);
      const result = await response.result();
      this.#afterTurn(slot, waiting, result);
    } catch (err) {
      if (!handed) waiting.reject(err);
      // A turn refused for its options (checked by run() already; this is the agent's own word) leaves the
      // agent as it was; anything else leaves it in doubt, so it is retired.
      if (!(chatting && err instanceof ConfigError))
        this.#retire(slot, err instanceof Error ? err.message : String(err));
    } finally {
      if (this.#agents.get(waiting.key) === slot && slot.state !== 'idle') {
        slot.state = 'idle';
        slot.lastUsed = Date.now();
      }
      this.#pump();
    }
  }

  /** Starts `agent`, records its latency and conversation id; returns the start time in ms. */
  async #startAgent(slot: Slot, agent: Agent, reason: StartReason): Promise<number> {
    const t0 = performance.now();
    await agent.start();
    const ms = performance.now() - t0;
    this.#counters.started(ms, reason);
    this.#metrics?.agentStarted(ms, reason);
    if (slot.key !== undefined && agent.conversationId !== undefined)
      await this.#conversations.set(slot.key, agent.conversationId);
    this.#emit({ type: 'agent_started', key: slot.key, ms, reason, conversationId: agent.conversationId });
    return ms;
  }

  async #startWarm(): Promise<void> {
    const config = this.#agentConfig as AgentConfig;
    const agent = new Agent(config);
    const slot = newSlot(agent, undefined);
    this.#warm.push(slot);
    try {
      await this.#startAgent(slot, agent, 'warm');
      slot.state = 'idle';
    } catch (err) {
      const at = this.#warm.indexOf(slot);
      if (at >= 0) this.#warm.splice(at, 1);
      throw err;
    } finally {
      this.#pump();
    }
  }

  #afterTurn(slot: Slot, waiting: Waiting, result: TurnResult): void {
    this.#counters.events.turns++;
    const { model } = waiting;
    if (result.status === 'rate_limited' || result.status === 'quota_exhausted') {
      this.#counters.events.rateLimited++;
      const strikes = (this.#strikes.get(model) ?? 0) + 1;
      this.#strikes.set(model, strikes);
      const stated = result.resetsAt?.getTime();
      const untilMs = stated ?? Date.now() + backoffMs(strikes, this.#backoff);
      this.#pauses.pause(model, untilMs);
      this.#emit({
        type: 'model_paused',
        model,
        untilMs,
        source: stated === undefined ? 'backoff' : 'reset_time',
        result,
      });
    } else if (result.status === 'success') this.#strikes.delete(model);
    // agy died during the turn: retire the agent; the key's next run resumes its conversation in a new one.
    if (result.exitCode !== null || result.signal !== null) {
      this.#retire(slot, `agy exited during the turn (${result.signal ?? `code ${result.exitCode}`})`);
    }
  }

  /** Removes a failed agent; its key resumes by conversation id on its next run. */
  #retire(slot: Slot, reason: string): void {
    if (slot.key === undefined || this.#agents.get(slot.key) !== slot) return;
    this.#agents.delete(slot.key);
    this.#counters.events.crashed++;
    const conversationId = slot.agent?.conversationId ?? slot.resumedFrom;
    if (conversationId !== undefined) this.#remember(slot.key, conversationId);
    this.#emit({ type: 'agent_crashed', key: slot.key, conversationId, reason });
    if (slot.agent) this.#closeInBackground(slot.agent);
  }

  /** Closes the least recently used idle agent (a warm one first) to make room. */
  #evictOne(): void {
    const warmAt = this.#warm.findIndex((s) => s.state === 'idle');
    let victim: Slot | undefined;
    if (warmAt >= 0) victim = this.#warm.splice(warmAt, 1)[0];
    else {
      for (const slot of this.#agents.values())
        if (slot.state === 'idle' && (!victim || slot.lastUsed < victim.lastUsed)) victim = slot;
      if (victim?.key !== undefined) this.#agents.delete(victim.key);
    }
    if (!victim) return;
    this.#counters.events.evicted++;
    const evictedId = victim.agent?.conversationId;
    if (victim.key !== undefined && evictedId !== undefined) this.#remember(victim.key, evictedId);
    this.#emit({ type: 'agent_evicted', key: victim.key, conversationId: victim.agent?.conversationId });
    if (victim.agent) this.#closeInBackground(victim.agent);
  }

  /** Records `key`'s conversation id for its next agent to resume, in the background (a failure is logged). */
  #remember(key: string, conversationId: string): void {
    void this.#conversations
      .set(key, conversationId)
      .catch((err: unknown) => this.#logger.warn('pool: recording a conversation id failed', err));
  }

  #closeInBackground(agent: Agent): void {
    const closing = agent
      .close()
      .catch((err) => this.#logger.warn('pool: closing an agent failed', err))
      .finally(() => this.#closing.delete(closing));
    this.#closing.add(closing);
  }

  #emit(event: PoolEvent): void {
    if (!this.#onEvent) return;
    try {
      this.#onEvent(event);
    } catch (err) {
      this.#logger.warn(`pool: onEvent threw on ${event.type}`, err);
    }
  }

  #statsChanged(): void {
    if (!this.#onStats || this.#statsQueued) return;
    this.#statsQueued = true;
    queueMicrotask(() => {
      this.#statsQueued = false;
      try {
        this.#onStats?.(this.stats);
      } catch (err) {
        this.#logger.warn('pool: onStats threw', err);
      }
    });
  }
}
