/**
 * The pool stores a fleet shares through Redis: rate-limit pauses (a 429 on one worker pauses the model on
 * every worker) and each key's conversation id (a job retried elsewhere resumes its conversation).
 */

import type { Redis } from 'ioredis';
import type { ConversationStore, PauseStore } from '../pool/index.js';
import type { FleetKeys } from './redis.js';

/** Sets the pause only when it is later than the one stored, and announces it. */
const PAUSE_SCRIPT = `
local current = tonumber(redis.call('GET', KEYS[1]) or '0')
local untilMs = tonumber(ARGV[1])
if untilMs > current then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
  redis.call('PUBLISH', KEYS[2], ARGV[3])
end
return current`;

/**
 * Rate-limit pauses in Redis, with a local copy the pool reads synchronously. The copy is kept fresh by the
 * pause channel, and `refresh` reads a model's key before a job runs (a worker that missed a message, or
 * started after it, still sees the pause).
 */
export class RedisPauseStore implements PauseStore {
  readonly #redis: Redis;
  readonly #subscriber: Redis;
  readonly #keys: FleetKeys;
  readonly #local = new Map<string, number>();
  readonly #listeners = new Set<() => void>();
  readonly #onError: (err: unknown) => void;

  constructor(redis: Redis, subscriber: Redis, keys: FleetKeys, onError: (err: unknown) => void) {
    this.#redis = redis;
    this.#subscriber = subscriber;
    this.#keys = keys;
    this.#onError = onError;
  }

  /** Subscribes to the pause channel. */
  async start(): Promise<void> {
    this.#subscriber.on('message', (channel: string, message: string) => {
      if (channel !== this.#keys.pauseChannel) return;
      const at = message.lastIndexOf(' ');
      const model = message.slice(0, at);
      const untilMs = Number(message.slice(at + 1));
      if (model && Number.isFinite(untilMs)) this.#note(model, untilMs);
    });
    await this.#subscriber.subscribe(this.#keys.pauseChannel);
  }

  /** Pauses `model` here at once and in Redis (only if later than the stored pause). */
  pause(model: string, untilMs: number): void {
    this.#note(model, untilMs);
    const ttl = Math.max(1, Math.ceil(untilMs - Date.now()));
    this.#redis
      .eval(
        PAUSE_SCRIPT,
        2,
        this.#keys.pause(model),
        this.#keys.pauseChannel,
        String(untilMs),
        String(ttl),
        `${model} ${untilMs}`,
      )
      .catch(this.#onError);
  }

  /** The local view of the pause. */
  pausedUntil(model: string): number {
    const until = this.#local.get(model) ?? 0;
    if (until !== 0 && until <= Date.now()) this.#local.delete(model);
    return until;
  }

  /** Reads `model`'s pause from Redis into the local view; returns it (epoch ms, 0 when none). */
  async refresh(model: string): Promise<number> {
    const stored = Number((await this.#redis.get(this.#keys.pause(model))) ?? 0);
    if (stored > Date.now()) this.#note(model, stored);
    return this.pausedUntil(model);
  }

  /** Calls `listener` when a pause arrives from elsewhere. */
  subscribe(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  #note(model: string, untilMs: number): void {
    if (untilMs <= (this.#local.get(model) ?? 0)) return;
    this.#local.set(model, untilMs);
    for (const listener of this.#listeners) listener();
  }
}

/** Each key's conversation id in a Redis hash, shared by every worker. */
export class RedisConversationStore implements ConversationStore {
  readonly #redis: Redis;
  readonly #hash: string;

  constructor(redis: Redis, keys: FleetKeys) {
    this.#redis = redis;
    this.#hash = keys.conversations;
  }

  /** The id recorded for `key`. */
  async get(key: string): Promise<string | undefined> {
    return (await this.#redis.hget(this.#hash, key)) ?? undefined;
  }

  /** Records the id for `key`. */
  async set(key: string, conversationId: string): Promise<void> {
    await this.#redis.hset(this.#hash, key, conversationId);
  }
}
