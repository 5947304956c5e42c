/**
 * The upstream HTTP call: `node:http(s)` with keep-alive agents (connection reuse matters for the added-latency
 * budget), an `AbortSignal` that tears the request down when the client disconnects, and the response body
 * handed over as a stream so deltas are forwarded as they arrive.
 */
import http, { type IncomingMessage } from 'node:http';
import https from 'node:https';

/** Keep-alive agents shared by one gateway. */
export interface UpstreamAgents {
  /** For `http:` base URLs. */
  http: http.Agent;
  /** For `https:` base URLs. */
  https: https.Agent;
}

/** Fresh keep-alive agents. */
export function createAgents(): UpstreamAgents {
  return {
    http: new http.Agent({ keepAlive: true, maxSockets: 64 }),
    https: new https.Agent({ keepAlive: true, maxSockets: 64 }),
  };
}

/** Joins a base URL and a path without doubling or losing slashes; a query (Azure's `api-version`) is kept. */
export function joinUrl(baseUrl: string, path: string): URL {
  const url = new URL(baseUrl);
  url.pathname = url.pathname.replace(/\/+$/, '') + path;
  return url;
}

/** POSTs JSON; resolves with the response once its headers arrived. Rejects on network failure or abort. */
export function postJson(
  url: URL,
  headers: Record<string, string>,
  body: unknown,
  agents: UpstreamAgents,
  signal: AbortSignal,
): Promise<IncomingMessage> {
  const payload = Buffer.from(JSON.stringify(body), 'utf8');
  const secure = url.protocol === 'https:';
  const request = secure ? https.request : http.request;
  return new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(new Error('aborted'));
      return;
    }
    const req = request(url, {
      method: 'POST',
      agent: secure ? agents.https : agents.http,
      headers: {
        ...headers,
        'content-type': 'application/json',
        'content-length': String(payload.length),
        // Compressed SSE would be buffered by the decompressor; ask for identity.
        'accept-encoding': 'identity',
      },
    });
    const onAbort = (): void => {
      req.destroy(new Error('aborted'));
    };
    signal.addEventListener('abort', onAbort, { once: true });
    req.on('response', (res) => {
      res.on('close', () => signal.removeEventListener('abort', onAbort));
      resolve(res);
    });
    req.on('error', (error) => {
      signal.removeEventListener('abort', onAbort);
      reject(error);
    });
    req.setNoDelay(true);
    req.end(payload);
  });
}

/** Reads a (small) body to a string, capped so a hostile upstream cannot exhaust memory. */
export function readBody(res: IncomingMessage, limit = 1 << 20): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    res.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit) chunks.push(chunk);
    });
    res.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    res.on('error', () => resolve(Buffer.concat(chunks).toString('utf8')));
    res.on('aborted', () => resolve(Buffer.concat(chunks).toString('utf8')));
  });
}
