/**
 * The upstream HTTP call: `node:http(s)` with keep-alive agents (connection reuse matters for the added-latency
 * budget), an `AbortSignal` that tears the request down when the client disconnects, and the response body
 * handed over as a stream so deltas are forwarded as they arrive.
 */
import http, { type IncomingMessage } from 'node:http';
import https from 'node:https';
import { failedOnStaleSocket } from '../../internal/stale-socket.js';

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

/** Upstream time limits of one request, in ms (`0` is none). */
export interface UpstreamTimeouts {
  /** From the request until its socket is connected (TCP, and TLS for `https:`). A reused socket is connected. */
  connectMs: number;
  /** From the request until the response's status and headers arrived. */
  headersMs: number;
}

/** The upstream did not connect, or did not answer, in time: a 504 for the client. */
export class UpstreamTimeoutError extends Error {
  /** Which limit passed. */
  readonly phase: 'connect' | 'headers' | 'idle';
  /** The limit, in ms. */
  readonly limitMs: number;
  constructor(phase: 'connect' | 'headers' | 'idle', limitMs: number) {
    super(
      phase === 'connect'
        ? `upstream did not connect within ${limitMs} ms`
        : phase === 'headers'
          ? `upstream sent no response within ${limitMs} ms`
          : `upstream sent nothing for ${limitMs} ms`,
    );
    this.name = 'UpstreamTimeoutError';
    this.phase = phase;
    this.limitMs = limitMs;
  }
}

/**
 * POSTs JSON; resolves with the response once its headers arrived. Rejects on network failure, abort, or an
 * `UpstreamTimeoutError` when the connect or headers limit passes (the request is destroyed).
 *
 * A request reset on a reused keep-alive connection before any answer (the upstream's idle close racing the
 * reuse: Node servers and uvicorn, behind most local model servers, close idle connections after 5 s) is sent
 * once more on a new connection (`internal/stale-socket.ts`). Any other failure is the client's to see.
 */
export function postJson(
  url: URL,
  headers: Record<string, string>,
  body: unknown,
  agents: UpstreamAgents,
  signal: AbortSignal,
  timeouts: UpstreamTimeouts = { connectMs: 0, headersMs: 0 },
): Promise<IncomingMessage> {
  const payload = Buffer.from(JSON.stringify(body), 'utf8');
  return send(url, headers, payload, agents, signal, timeouts, true);
}

function send(
  url: URL,
  headers: Record<string, string>,
  payload: Buffer,
  agents: UpstreamAgents,
  signal: AbortSignal,
  timeouts: UpstreamTimeouts,
  mayRetry: boolean,
): Promise<IncomingMessage> {
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
    const timers: NodeJS.Timeout[] = [];
    const clear = (): void => {
      for (const t of timers.splice(0)) clearTimeout(t);
    };
    const limit = (ms: number, phase: 'connect' | 'headers'): NodeJS.Timeout | undefined => {
      if (ms <= 0) return undefined;
      const timer = setTimeout(() => req.destroy(new UpstreamTimeoutError(phase, ms)), ms);
      timers.push(timer);
      return timer;
    };
    const connectTimer = limit(timeouts.connectMs, 'connect');
    limit(timeouts.headersMs, 'headers');
    if (connectTimer) {
      req.once('socket', (socket) => {
        if (!socket.connecting) return clearTimeout(connectTimer);
        socket.once(secure ? 'secureConnect' : 'connect', () => clearTimeout(connectTimer));
      });
    }
    const onAbort = (): void => {
      req.destroy(new Error('aborted'));
    };
    signal.addEventListener('abort', onAbort, { once: true });
    let answered = false;
    req.on('response', (res) => {
      answered = true;
      clear();
      res.on('close', () => signal.removeEventListener('abort', onAbort));
      resolve(res);
    });
    req.on('error', (error: NodeJS.ErrnoException) => {
      clear();
      signal.removeEventListener('abort', onAbort);
      if (mayRetry && !signal.aborted && failedOnStaleSocket(req, error, answered)) {
        resolve(send(url, headers, payload, agents, signal, timeouts, false));
        return;
      }
      reject(error);
    });
    req.setNoDelay(true);
    req.end(payload);
  });
}

/**
 * Reads a (small) body to a string, capped so a hostile upstream cannot exhaust memory, and bounded in time:
 * when nothing arrives for `idleMs` (`0`: no limit), what came so far is the body and the response is dropped.
 */
export function readBody(res: IncomingMessage, limit = 1 << 20, idleMs = 0): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let timer: NodeJS.Timeout | undefined;
    const done = (): void => {
      clearTimeout(timer);
      resolve(Buffer.concat(chunks).toString('utf8'));
    };
    const arm = (): void => {
      if (idleMs <= 0) return;
      clearTimeout(timer);
      timer = setTimeout(() => {
        res.destroy();
        done();
      }, idleMs);
    };
    arm();
    res.on('data', (chunk: Buffer) => {
      arm();
      size += chunk.length;
      if (size <= limit) chunks.push(chunk);
    });
    res.on('end', done);
    res.on('error', done);
    res.on('aborted', done);
    res.on('close', done);
  });
}
