/**
 * `createGateway`: a Gemini-compatible HTTP endpoint on 127.0.0.1 that forwards to an OpenAI Chat, OpenAI
 * Responses or Anthropic upstream and streams the answer back token by token
 * (docs/reference/gateway-checklist.md). One per-run token guards it; the upstream key stays in this process.
 * Every failure becomes a Google-shaped error; nothing a client sends can crash it.
 *
 * This file holds the listener and its lifecycle; a request's handling starts in `handle-request.ts`.
 */
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { ConfigError } from '../errors.js';
import { createToken } from '../internal/token.js';
import { checkedLogger, describeError } from '../logger.js';
import { createGatewayContext, type GatewayContext, redactText, sendError } from './context.js';
import { GatewayError } from './errors.js';
import { handleRequest } from './handle-request.js';
import {
  DEFAULT_GATEWAY_HEADERS_TIMEOUT_MS,
  DEFAULT_GATEWAY_IDLE_TIMEOUT_MS,
  DEFAULT_GATEWAY_MAX_CONNECTIONS,
  DEFAULT_GATEWAY_REQUEST_TIMEOUT_MS,
  type Gateway,
  type GatewayOptions,
} from './options.js';
import { validateGatewayOptions } from './validate-options.js';

/** The HTTP listener: bounded like the session listener, so a local process without the token cannot hold it. */
class GatewayServer {
  readonly #ctx: GatewayContext;
  /** The Node server, listening once `createGateway` has started it. */
  readonly server: Server;

  constructor(options: GatewayOptions) {
    const ctx = createGatewayContext(options, createToken());
    this.#ctx = ctx;
    const headersTimeout = options.headersTimeoutMs ?? DEFAULT_GATEWAY_HEADERS_TIMEOUT_MS;
    const idleTimeout = options.idleTimeoutMs ?? DEFAULT_GATEWAY_IDLE_TIMEOUT_MS;
    this.server = createServer(
      {
        noDelay: true,
        keepAlive: true,
        headersTimeout,
        requestTimeout:
          options.requestTimeoutMs ?? Math.max(DEFAULT_GATEWAY_REQUEST_TIMEOUT_MS, headersTimeout),
        keepAliveTimeout: idleTimeout,
        // Node checks the two timeouts above on this period (default 30 s, which would stretch them).
        connectionsCheckingInterval: Math.max(25, Math.min(1000, Math.floor(headersTimeout / 4))),
      },
      (req, res) => {
        // A request is in flight: receiving it is bounded by the request timeout, answering it by the upstream's.
        req.socket.setTimeout(0);
        handleRequest(ctx, req, res).catch((error: unknown) => {
          ctx.logger.error(`gateway: unexpected failure: ${redactText(ctx, describeError(error))}`);
          sendError(ctx, res, new GatewayError(500, 'internal gateway error'));
          if (!res.writableEnded) res.end();
        });
      },
    );
    this.server.maxConnections = options.maxConnections ?? DEFAULT_GATEWAY_MAX_CONNECTIONS;
    this.#bound(idleTimeout);
  }

  /** Idle sockets time out, refused connections are logged once, malformed or slow requests are closed. */
  #bound(idleTimeout: number): void {
    // Idle before the first request; Node's keep-alive timer takes over between requests.
    this.server.on('connection', (socket: Socket) => socket.setTimeout(idleTimeout));
    let drops = 0;
    this.server.on('drop', () => {
      // Once at warn level: a flood must not also flood the log.
      if (drops++ === 0) this.#ctx.logger.warn('gateway: connection limit reached; refusing connections');
    });
    this.server.on('clientError', (error: NodeJS.ErrnoException, socket) => {
      const timedOut = error.code === 'ERR_HTTP_REQUEST_TIMEOUT';
      const started = (socket as Socket & { _httpMessage?: ServerResponse })._httpMessage?.headersSent;
      if (socket.writable && !started)
        socket.end(
          timedOut
            ? 'HTTP/1.1 408 Request Timeout\r\nconnection: close\r\ncontent-length: 0\r\n\r\n'
            : 'HTTP/1.1 400 Bad Request\r\nconnection: close\r\ncontent-length: 0\r\n\r\n',
        );
      socket.destroy();
    });
  }

  /** The per-run key clients must present. */
  get tokenValue(): string {
    return this.#ctx.token;
  }

  /** Aborts the requests in flight, stops listening, closes every client and upstream connection. */
  async close(): Promise<void> {
    for (const controller of this.#ctx.inflight) controller.abort();
    await new Promise<void>((resolve) => {
      this.server.close(() => resolve());
      this.server.closeAllConnections();
    });
    this.#ctx.agents.http.destroy();
    this.#ctx.agents.https.destroy();
  }
}

/** Starts a gateway on 127.0.0.1. Throws `ConfigError` for bad options; leaves nothing listening on failure. */
export async function createGateway(options: GatewayOptions): Promise<Gateway> {
  validateGatewayOptions(options);
  let gateway: GatewayServer;
  try {
    gateway = new GatewayServer(options);
  } catch (error) {
    if (error instanceof TypeError) throw new ConfigError('modelMap', error.message);
    throw error;
  }
  const { server } = gateway;
  await new Promise<void>((resolve, reject) => {
    const onError = (error: NodeJS.ErrnoException): void => {
      server.close();
      if (error.code === 'EADDRINUSE' || error.code === 'EACCES')
        reject(
          new ConfigError(
            'port',
            `127.0.0.1:${options.port ?? 0} is ${error.code === 'EADDRINUSE' ? 'already in use' : 'not allowed'} (${error.code})`,
          ),
        );
      else reject(error);
    };
    server.once('error', onError);
    server.listen(options.port ?? 0, '127.0.0.1', () => {
      server.off('error', onError);
      resolve();
    });
  });
  server.on('error', (error) =>
    checkedLogger(options.logger).error(`gateway: server error: ${describeError(error)}`),
  );
  const { port } = server.address() as AddressInfo;
  let closing: Promise<void> | undefined;
  return {
    url: `http://127.0.0.1:${port}`,
    token: gateway.tokenValue,
    close: () => {
      closing ??= gateway.close();
      return closing;
    },
  };
}
