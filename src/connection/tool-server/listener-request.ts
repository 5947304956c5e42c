/**
 * Request screening for the listener, all before any user code runs: the Host/Origin check against DNS
 * rebinding, and parsing `/<token>/<kind>/<name>` with a constant-time token comparison.
 */
import { tokensEqual } from '../../internal/token.js';
import type { ListenerHeaders } from './request-headers.js';

/** Server and hook-event names the listener routes: no dots, slashes or percent signs can get through. */
export const ROUTE_NAME = /^[A-Za-z0-9_-]{1,64}$/;

/** A request's target, once its token has checked out. */
export interface Route {
  /** `mcp` for `/<token>/mcp/<server>`, `hook` for `/<token>/hook/<event>`. */
  kind: 'mcp' | 'hook';
  /** The server or event name. */
  name: string;
}

/**
 * Parses a raw request target. Works on the raw, undecoded path, so `..%2f` or `%2e%2e` never matches
 * `ROUTE_NAME`; a query string is ignored. The token is always compared, even for malformed paths, so the
 * time taken says nothing about which part was wrong.
 */
export function parseRoute(rawUrl: string | undefined, token: string): Route | undefined {
  const target = rawUrl ?? '';
  const queryAt = target.indexOf('?');
  const end = queryAt === -1 ? target.length : queryAt;
  const rooted = target.charCodeAt(0) === 0x2f;
  // The segment boundaries by index (no split, no array): `/<token>/<kind>/<name>` and nothing after it.
  const kindAt = rooted ? target.indexOf('/', 1) : -1;
  const inPath = kindAt !== -1 && kindAt < end;
  const tokenOk = tokensEqual(rooted ? target.slice(1, inPath ? kindAt : end) : '', token);
  if (!tokenOk || !inPath) return undefined;
  const nameAt = target.indexOf('/', kindAt + 1);
  if (nameAt === -1 || nameAt >= end) return undefined;
  const extra = target.indexOf('/', nameAt + 1);
  if (extra !== -1 && extra < end) return undefined;
  const kind = target.slice(kindAt + 1, nameAt);
  const name = target.slice(nameAt + 1, end);
  if ((kind !== 'mcp' && kind !== 'hook') || !ROUTE_NAME.test(name)) return undefined;
  return { kind, name };
}

/** The `Host` values a loopback client on `port` sends. */
export function loopbackHosts(port: number): Set<string> {
  return new Set([`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`]);
}

/**
 * Whether the request claims to be for this loopback listener. A DNS-rebinding page reaches 127.0.0.1
 * under its own host name, so its `Host` (and `Origin`) give it away. agy sends no `Origin`; a browser
 * always does on a cross-origin POST, and only our own origins are accepted.
 */
export function isLoopbackRequest(headers: ListenerHeaders, hosts: Set<string>): boolean {
  const host = headers.host?.toLowerCase();
  if (host === undefined || !hosts.has(host)) return false;
  const origin = headers.origin;
  if (origin === undefined) return true;
  return (
    origin.toLowerCase().startsWith('http://') && hosts.has(origin.toLowerCase().slice('http://'.length))
  );
}
