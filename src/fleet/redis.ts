/**
 * The fleet's Redis plumbing: one connection spec (a `redis://` URL or ioredis options) turned into ioredis
 * clients, and the key names every worker and client agrees on.
 */

import { Redis } from 'ioredis';
import { RedisUnavailableError } from '../errors.js';
import { describeError, type Logger } from '../logger.js';

/** A Redis server by its parts (the `redis://` URL's, spelled out). */
export interface FleetRedisOptions {
  /** Host name or address. Default `127.0.0.1`. */
  host?: string | undefined;
  /** Port. Default 6379. */
  port?: number | undefined;
  /** ACL user name. */
  username?: string | undefined;
  /** Password. */
  password?: string | undefined;
  /** Database number. Default 0. */
  db?: number | undefined;
  /** Connect with TLS (`rediss://`). */
  tls?: boolean | undefined;
}

/** Where the fleet's Redis is: a `redis://` (or `rediss://`) URL, or its parts. */
export type FleetConnection = string | FleetRedisOptions;

/** The connection as a URL (credentials percent-encoded). */
export function connectionUrl(connection: FleetConnection): string {
  if (typeof connection === 'string') return connection;
  const { host = '127.0.0.1', port = 6379, username, password, db, tls } = connection;
  const auth =
    password !== undefined
      ? `${encodeURIComponent(username ?? '')}:${encodeURIComponent(password)}@`
      : username !== undefined
        ? `${encodeURIComponent(username)}@`
        : '';
  return `${tls ? 'rediss' : 'redis'}://${auth}${host.includes(':') ? `[${host}]` : host}:${port}/${db ?? 0}`;
}

/** Where a fleet lives in Redis: BullMQ's queue name and key prefix. */
export interface FleetLocation {
  /** The BullMQ queue name. Default `agy-fleet`. */
  name?: string | undefined;
  /** BullMQ's key prefix. Default `bull`. */
  prefix?: string | undefined;
}

/** The resolved location and the names of the fleet's own keys (next to BullMQ's). */
export interface FleetKeys {
  name: string;
  prefix: string;
  /** `<prefix>:<name>:agy:pause:<model>` holds the epoch ms a model is paused until (expiring with it). */
  pause(model: string): string;
  /** The channel pauses are announced on, so waiting pools re-check at once. */
  pauseChannel: string;
  /** The hash key → conversation id. */
  conversations: string;
  /** `<prefix>:<name>:agy:ran:<jobId>:<attempt>`: a finished turn's result, kept until the job completes. */
  ran(attempt: string): string;
}

/** The key names of a fleet. */
export function fleetKeys(location: FleetLocation = {}): FleetKeys {
  const name = location.name ?? 'agy-fleet';
  const prefix = location.prefix ?? 'bull';
  const base = `${prefix}:${name}:agy`;
  return {
    name,
    prefix,
    pause: (model) => `${base}:pause:${model}`,
    pauseChannel: `${base}:pauses`,
    conversations: `${base}:conversations`,
    ran: (attempt) => `${base}:ran:${attempt}`,
  };
}

/** The server of a connection for messages: `host:port/db`, never the credentials. */
export function serverOf(connection: FleetConnection): string {
  try {
    const url = new URL(connectionUrl(connection));
    return `${url.hostname}:${url.port || 6379}${url.pathname && url.pathname !== '/' ? url.pathname : ''}`;
  } catch {
    return '(an unparsable Redis URL)';
  }
}

/**
 * A new ioredis client. `maxRetriesPerRequest: null` is what BullMQ requires of the connections it blocks on;
 * commands wait for a reconnect instead of failing mid-job. The monitor's `error` listener keeps ioredis from
 * printing "Unhandled error event" traces by itself.
 */
export function redisClient(connection: FleetConnection, monitor: RedisMonitor): Redis {
  const client = new Redis(connectionUrl(connection), { maxRetriesPerRequest: null });
  monitor.watch(client);
  return client;
}

/** A connection error (refused, reset, closed, timed out), as opposed to a command's own failure. */
export function isConnectionError(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  if (
    typeof code === 'string' &&
    /^(ECONNREFUSED|ECONNRESET|ETIMEDOUT|EPIPE|ENOTFOUND|EAI_AGAIN|EHOSTUNREACH)$/.test(code)
  )
    return true;
  const message = err instanceof Error ? err.message : String(err);
  return /Connection is closed|connect ECONNREFUSED|Stream isn't writeable|socket closed|Socket closed unexpectedly|ECONNRESET/i.test(
    message,
  );
}

/**
 * The connection state of one fleet queue or worker, across its Redis clients: a lost connection is reported
 * once (warn) when the first client loses it, and a regained one once (info) when every client is back; raw
 * connection errors (ioredis' and BullMQ's, one per retry) are never printed. Any other error goes to the
 * logger as one line.
 */
export class RedisMonitor {
  readonly #logger: Logger;
  readonly #label: string;
  readonly #server: string;
  readonly #clients = new Set<Redis>();
  #downSince: number | undefined;
  #lastError: unknown;
  #closing = false;
  #everReady = false;

  constructor(logger: Logger, label: string, connection: FleetConnection) {
    this.#logger = logger;
    this.#label = label;
    this.#server = serverOf(connection);
  }

  /** The server, for messages. */
  get server(): string {
    return this.#server;
  }

  /** True while a connection is lost. */
  get down(): boolean {
    return this.#downSince !== undefined;
  }

  /** The last connection error seen, for a start that gives up. */
  get lastError(): unknown {
    return this.#lastError;
  }

  /** Follows a client's connection (its errors, closes and reconnects). */
  watch(client: Redis): void {
    this.#clients.add(client);
    client.on('error', (err: unknown) => this.#lost(err));
    client.on('close', () => this.#lost(new Error('the connection closed')));
    client.on('ready', () => {
      this.#everReady = true;
      this.#maybeRegained();
    });
  }

  /** An `error` event of a BullMQ object: connection errors only mark the state; others are logged once each. */
  error(source: string, err: unknown): void {
    if (this.#closing) return;
    if (isConnectionError(err)) {
      this.#lastError = err;
      return;
    }
    this.#logger.warn(`fleet ${this.#label}: ${source}: ${describeError(err)}`);
  }

  /** From now on the clients are being closed by us: nothing more is reported as lost. */
  closing(): void {
    this.#closing = true;
  }

  /**
   * Waits for `ready` (every start step) up to `timeoutMs`; on time-out calls `abandon` (which must disconnect
   * everything) and rejects with `RedisUnavailableError`.
   */
  async within<T>(ready: Promise<T>, timeoutMs: number, abandon: () => Promise<void>): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), timeoutMs);
    });
    // A start that loses the race must not surface later as an unhandled rejection.
    ready.catch(() => {});
    try {
      const first = await Promise.race([ready, timedOut]);
      if (first !== 'timeout') return first as T;
    } finally {
      clearTimeout(timer);
    }
    this.closing();
    await abandon();
    const error = new RedisUnavailableError(this.#server, timeoutMs, this.#lastError);
    this.#logger.error(`fleet ${this.#label}: ${error.message}; gave up and closed its connections`);
    throw error;
  }

  #lost(err: unknown): void {
    if (this.#closing) return;
    this.#lastError = err;
    if (this.#downSince !== undefined) return;
    this.#downSince = Date.now();
    this.#logger.warn(
      this.#everReady
        ? `fleet ${this.#label}: lost the connection to Redis at ${this.#server} (${describeError(err)}); reconnecting`
        : `fleet ${this.#label}: cannot reach Redis at ${this.#server} yet (${describeError(err)}); retrying`,
    );
  }

  #maybeRegained(): void {
    if (this.#downSince === undefined || this.#closing) return;
    for (const client of this.#clients) if (client.status !== 'ready') return;
    const seconds = ((Date.now() - this.#downSince) / 1000).toFixed(1);
    this.#downSince = undefined;
    this.#logger.info(
      `fleet ${this.#label}: connection to Redis at ${this.#server} regained after ${seconds} s`,
    );
  }
}

/** Settles with `promise`, or with `'timeout'` after `ms`; the timer is always cleared. */
export async function boundedWait<T>(promise: Promise<T>, ms: number): Promise<T | 'timeout'> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), ms);
  });
  promise.catch(() => {});
  try {
    return await Promise.race([promise, timedOut]);
  } finally {
    clearTimeout(timer);
  }
}
