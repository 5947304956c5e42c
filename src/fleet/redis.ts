/**
 * The fleet's Redis plumbing: one connection spec (a `redis://` URL or ioredis options) turned into ioredis
 * clients, and the key names every worker and client agrees on.
 */

import { Redis } from 'ioredis';

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
  };
}

/**
 * A new ioredis client. `maxRetriesPerRequest: null` is what BullMQ requires of the connections it blocks on;
 * commands wait for a reconnect instead of failing mid-job.
 */
export function redisClient(connection: FleetConnection): Redis {
  return new Redis(connectionUrl(connection), { maxRetriesPerRequest: null });
}
