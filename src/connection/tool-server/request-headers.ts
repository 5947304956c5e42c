/**
 * The request headers the listener checks, read from `req.rawHeaders` in one pass. Reading `req.headers` makes
 * Node build an object of every header the first time (each name lower-cased and matched against its list of
 * known fields): about 3 µs of a ~70 µs tool call, for the six names the listener looks at.
 *
 * Duplicates are merged as `req.headers` merges them (https://nodejs.org/api/http.html#messageheaders): the
 * first `Host`, `Content-Type` and `Content-Length` win and later ones are discarded; `Accept`, `Origin` and
 * `Mcp-Protocol-Version` are joined with `", "`.
 */
import type { IncomingMessage } from 'node:http';

/** The headers the listener's checks read; each is `undefined` when the request did not send it. */
export interface ListenerHeaders {
  /** `Host`: checked against the listener's loopback names (DNS rebinding). */
  host: string | undefined;
  /** `Origin`: a browser's cross-origin POST carries one. */
  origin: string | undefined;
  /** `Accept`: an MCP POST must accept JSON and SSE. */
  accept: string | undefined;
  /** `Content-Type`: an MCP POST must be JSON. */
  contentType: string | undefined;
  /** `Content-Length`: a declared body over the limit is refused before it is read. */
  contentLength: string | undefined;
  /** `Mcp-Protocol-Version`: checked against the versions the MCP SDK supports. */
  protocolVersion: string | undefined;
}

const join = (held: string | undefined, value: string): string =>
  held === undefined ? value : `${held}, ${value}`;

/** Reads the {@link ListenerHeaders} of `req`. */
export function listenerHeaders(req: IncomingMessage): ListenerHeaders {
  const raw = req.rawHeaders;
  let host: string | undefined;
  let origin: string | undefined;
  let accept: string | undefined;
  let contentType: string | undefined;
  let contentLength: string | undefined;
  let protocolVersion: string | undefined;
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i] as string;
    const value = raw[i + 1] as string;
    // The length first: most names are not wanted, and only a wanted length pays for the lower-casing.
    switch (name.length) {
      case 4:
        if (host === undefined && name.toLowerCase() === 'host') host = value;
        break;
      case 6: {
        const lower = name.toLowerCase();
        if (lower === 'accept') accept = join(accept, value);
        else if (lower === 'origin') origin = join(origin, value);
        break;
      }
      case 12:
        if (contentType === undefined && name.toLowerCase() === 'content-type') contentType = value;
        break;
      case 14:
        if (contentLength === undefined && name.toLowerCase() === 'content-length') contentLength = value;
        break;
      case 20:
        if (name.toLowerCase() === 'mcp-protocol-version') protocolVersion = join(protocolVersion, value);
        break;
    }
  }
  return { host, origin, accept, contentType, contentLength, protocolVersion };
}
