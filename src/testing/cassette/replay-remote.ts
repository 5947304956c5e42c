/**
 * Which MCP servers a replay may reach over the network. A cassette is untrusted input, so its `mcp` records go
 * only to loopback servers unless the user names a remote one for that replay (`ReplayOptions.allowRemoteServers`,
 * passed to the simulator as `AGY_SIM_CASSETTE_REMOTE`). The decision is made from the URL alone, before any
 * connection or DNS lookup: a host is loopback only when it is literally `localhost`, an address in
 * `127.0.0.0/8`, `::1`, or an IPv4-mapped `127.0.0.0/8` address; any other name counts as remote, whatever it
 * resolves to (a resolver, a hosts file or DNS rebinding could send it anywhere).
 */
import { isIPv4 } from 'node:net';
import { ConfigError } from '../../errors.js';

/** The environment variable that carries the opt-in to the simulator: `*` or comma-separated server names. */
export const REMOTE_SERVERS_ENV = 'AGY_SIM_CASSETTE_REMOTE';

/** A server name as agy and the SDK accept them. */
const SERVER_NAME = /^[A-Za-z0-9_-]{1,64}$/;

/** The remote servers a replay may reach: every one (`all`), or those named. */
export type RemoteServers = 'all' | ReadonlySet<string>;

/** Whether `hostname` (as `URL.hostname` gives it: IPv6 in brackets, IPv4 normalized) is loopback. */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.toLowerCase();
  if (host === 'localhost') return true;
  if (isIPv4(host)) return host.startsWith('127.');
  if (host === '[::1]') return true;
  // `URL` writes an IPv4-mapped address in hex: [::ffff:7f00:1] is 127.0.0.1.
  const mapped = /^\[::ffff:([0-9a-f]{1,4}):[0-9a-f]{1,4}\]$/.exec(host);
  return mapped !== null && Number.parseInt(mapped[1]!, 16) >> 8 === 127;
}

/** Whether `url` names a loopback host; an unparseable URL is not. */
export function isLoopbackUrl(url: string): boolean {
  try {
    return isLoopbackHost(new URL(url).hostname);
  } catch {
    return false;
  }
}

/**
 * Why a replay may not reach the server at `url`, or `undefined` when it may: loopback servers always, a remote
 * one only when `allowed` is `all` or names it (by any of `names`: its config key, its name in agy).
 */
export function remoteRefusal(
  url: string,
  names: readonly string[],
  allowed: RemoteServers,
): string | undefined {
  if (isLoopbackUrl(url)) return undefined;
  if (allowed === 'all' || names.some((n) => allowed.has(n))) return undefined;
  let host: string;
  try {
    host = new URL(url).host;
  } catch {
    return 'its URL cannot be parsed';
  }
  return `${host} is not a loopback host and this replay does not allow remote servers (allowRemoteServers)`;
}

/** The opt-in as `replayCassette` takes it. */
export type AllowRemoteServersOption = boolean | readonly string[];

/**
 * Checks the `allowRemoteServers` option and returns its environment value (`''` for none, so a value inherited
 * from the parent's environment cannot opt a replay in).
 *
 * @throws ConfigError (`allowRemoteServers`) when it is not a boolean or a list of server names.
 */
export function remoteServersEnv(option: AllowRemoteServersOption | undefined): string {
  if (option === undefined || option === false) return '';
  if (option === true) return '*';
  const problem = namesProblem(option);
  if (problem !== undefined) throw new ConfigError('allowRemoteServers', problem);
  return option.join(',');
}

/**
 * Parses {@link REMOTE_SERVERS_ENV}: empty or unset for none, `*` for every server, else comma-separated names.
 *
 * @returns the servers, or a string saying what was wrong.
 */
export function parseRemoteServers(value: string | undefined): RemoteServers | string {
  if (value === undefined || value === '') return new Set();
  if (value === '*') return 'all';
  const names = value.split(',');
  return namesProblem(names) ?? new Set(names);
}

function namesProblem(names: unknown): string | undefined {
  if (!Array.isArray(names)) return `must be true, false or an array of server names, got ${typeof names}`;
  for (const [i, name] of names.entries()) {
    if (typeof name !== 'string' || !SERVER_NAME.test(name))
      return `[${i}] must be a server name matching ${SERVER_NAME}, got ${JSON.stringify(name)}`;
  }
  return undefined;
}
