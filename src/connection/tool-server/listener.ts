/**
 * The session's listener: one loopback HTTP server per session that serves our in-process tools to agy over
 * MCP and relays agy's hook commands to the host. agy takes no callbacks; this is how it reaches us.
 *
 * - `POST /<token>/mcp/<server>`: Streamable HTTP MCP (stateless, JSON responses; see `listener-mcp.ts`); a
 *   `tool()` catalog's requests are answered directly (`mcp-direct.ts`), a factory's by its SDK server.
 * - `POST /<token>/hook/<event>`: the host's hook handler on agy's hook input (see `listener-hook.ts`).
 *
 * It binds `127.0.0.1` only, on a port the OS picks. Every path starts with a per-session random token that
 * only the config files the SDK writes for agy contain; anything else is a 404, a foreign `Host` or `Origin`
 * (DNS rebinding) a 403. Those checks, the method check and the body limit all run before user code.
 *
 * I/O is bounded so a local process without the token cannot hold the listener: headers and the whole request
 * must arrive within seconds (`headersTimeoutMs`, `requestTimeoutMs`), a socket with no request in flight is
 * closed after `idleTimeoutMs`, a rejected request whose body is still arriving loses its connection, and at
 * most `maxConnections` sockets are open at once. The limits are on *receiving* a request; a handler (a long
 * tool call, an `askUser` wait) may take as long as it needs to answer.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { createToken } from '../../internal/token.js';
import { consoleLogger, describeError, type Logger } from '../../logger.js';
import type { ToolDefinition } from '../../model/tool.js';
import { StateStore } from '../../model/tool-context.js';
import { DEFAULT_MAX_BODY_BYTES } from './listener-body.js';
import {
  DEFAULT_HOOK_TIMEOUT_MS,
  defaultHookFallback,
  type HookEndpoint,
  type HookFallback,
  handleHookRequest,
} from './listener-hook.js';
import { sendStatus } from './listener-http.js';
import {
  type Abortable,
  handleMcpRequest,
  type McpExchangeObserver,
  type McpServerFactory,
} from './listener-mcp.js';
import { isLoopbackRequest, loopbackHosts, parseRoute, ROUTE_NAME } from './listener-request.js';
import type { DirectCatalogOptions } from './mcp-direct.js';
import type { OwnToolHooks } from './mcp-tool-call.js';
import { ToolCatalog } from './mcp-tool-catalog.js';
import { listenerHeaders } from './request-headers.js';

/** The address the listener binds; never a public interface. */
export const LISTENER_HOST = '127.0.0.1';

/** Default time for a client to send a request's headers: loopback clients send them at once. */
export const DEFAULT_HEADERS_TIMEOUT_MS = 10_000;
/** Default time to receive a whole request (headers and a body of up to `maxBodyBytes`). */
export const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;
/** Default time a socket may sit with no request in flight (before the first, between keep-alive requests). */
export const DEFAULT_IDLE_TIMEOUT_MS = 5_000;
/** Default cap on open sockets: agy's concurrent hook and tool calls stay far below it. */
export const DEFAULT_MAX_CONNECTIONS = 64;

/** Options of {@link SessionListener.start}. */
export interface SessionListenerOptions {
  /**
   * The MCP servers to serve, by name (`[A-Za-z0-9_-]{1,64}`): `tool()` definitions, or a factory returning
   * an SDK `McpServer`/`Server` (called once per request, as stateless mode requires).
   */
  mcpServers?: Record<string, readonly ToolDefinition[] | McpServerFactory> | undefined;
  /** Answers hook calls and sees each answer sent (its own or the fallback); without it, hook paths are 404s. */
  hooks?: HookEndpoint | undefined;
  /** Sees each answered MCP POST (a cassette recorder). */
  onMcpExchange?: McpExchangeObserver | undefined;
  /** How long a hook may run before the fallback is answered; default 30 000 ms. */
  hookTimeoutMs?: number | undefined;
  /** The answer for a failed hook; default: deny for `PreToolUse`, `{}` otherwise. */
  hookFallback?: HookFallback | undefined;
  /** The largest request body accepted; default 4 MiB. Larger bodies get 413 without being buffered. */
  maxBodyBytes?: number | undefined;
  /** Time for a client to send complete request headers, in ms; then 408 and the socket closes. Default 10 s. */
  headersTimeoutMs?: number | undefined;
  /**
   * Time to receive a whole request (headers and body), in ms; then 408 and the socket closes. Default 30 s.
   * It does not limit the answer: a handler may run longer. At least `headersTimeoutMs`.
   */
  requestTimeoutMs?: number | undefined;
  /** Time a socket may stay open with no request in flight, in ms; then it is closed. Default 5 s. */
  idleTimeoutMs?: number | undefined;
  /** Most sockets open at once; further connections are closed on accept. Default 64. */
  maxConnections?: number | undefined;
  /** Where failures are reported; default prints warnings and errors. The token is never logged. */
  logger?: Logger | undefined;
  /** The host (its one gate and end of a call) and an observer on each call to a `tool()` (not to factory-built servers). */
  ownTools?: OwnToolHooks | undefined;
  /** The session's tool state; a fresh store when omitted. */
  state?: StateStore | undefined;
}

/** The listener's limits, each checked (a `RangeError` naming the option) or defaulted. */
interface ListenerLimits {
  maxBodyBytes: number;
  hookTimeoutMs: number;
  headersTimeoutMs: number;
  requestTimeoutMs: number;
  idleTimeoutMs: number;
  maxConnections: number;
}

/** Checks and defaults the listener's limits. @throws RangeError naming the first bad option. */
function listenerLimits(options: SessionListenerOptions): ListenerLimits {
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const hookTimeoutMs = options.hookTimeoutMs ?? DEFAULT_HOOK_TIMEOUT_MS;
  if (!Number.isSafeInteger(maxBodyBytes) || maxBodyBytes <= 0)
    throw new RangeError('maxBodyBytes must be a positive integer');
  if (!Number.isFinite(hookTimeoutMs) || hookTimeoutMs <= 0)
    throw new RangeError('hookTimeoutMs must be a positive number');
  const headersTimeoutMs = positiveInteger(
    'headersTimeoutMs',
    options.headersTimeoutMs,
    DEFAULT_HEADERS_TIMEOUT_MS,
  );
  const requestTimeoutMs = positiveInteger(
    'requestTimeoutMs',
    options.requestTimeoutMs,
    Math.max(DEFAULT_REQUEST_TIMEOUT_MS, headersTimeoutMs),
  );
  const idleTimeoutMs = positiveInteger('idleTimeoutMs', options.idleTimeoutMs, DEFAULT_IDLE_TIMEOUT_MS);
  const maxConnections = positiveInteger('maxConnections', options.maxConnections, DEFAULT_MAX_CONNECTIONS);
  if (headersTimeoutMs > requestTimeoutMs)
    throw new RangeError('headersTimeoutMs must not be larger than requestTimeoutMs');
  return { maxBodyBytes, hookTimeoutMs, headersTimeoutMs, requestTimeoutMs, idleTimeoutMs, maxConnections };
}

/** Each MCP server by its route name: a tool list becomes a catalog, a factory stays one. @throws TypeError on a bad name. */
function routeServers(options: SessionListenerOptions): {
  catalogs: Map<string, ToolCatalog>;
  factories: Map<string, McpServerFactory>;
} {
  const catalogs = new Map<string, ToolCatalog>();
  const factories = new Map<string, McpServerFactory>();
  for (const [name, entry] of Object.entries(options.mcpServers ?? {})) {
    if (!ROUTE_NAME.test(name)) throw new TypeError(`MCP server name "${name}" must match ${ROUTE_NAME}`);
    if (typeof entry === 'function') factories.set(name, entry);
    else catalogs.set(name, new ToolCatalog(name, entry));
  }
  return { catalogs, factories };
}

/** An HTTP server with the limits' timeouts, listening on `127.0.0.1` at a port the OS chose. */
async function listenOnLoopback(limits: ListenerLimits): Promise<Server> {
  const server = createServer({
    headersTimeout: limits.headersTimeoutMs,
    requestTimeout: limits.requestTimeoutMs,
    keepAliveTimeout: limits.idleTimeoutMs,
    // Node checks the two timeouts above on this period (default 30 s, which would stretch them).
    connectionsCheckingInterval: Math.max(25, Math.min(1000, Math.floor(limits.headersTimeoutMs / 4))),
  });
  server.maxConnections = limits.maxConnections;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, LISTENER_HOST, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return server;
}

/** A running listener. Start with {@link SessionListener.start}; always {@link SessionListener.close}. */
export class SessionListener {
  readonly #server: Server;
  readonly #token: string;
  readonly #port: number;
  readonly #hosts: Set<string>;
  readonly #factories: Map<string, McpServerFactory>;
  readonly #catalogs: Map<string, ToolCatalog>;
  /** How each catalog is answered without a per-request SDK `Server` (see `mcp-direct.ts`). */
  readonly #direct = new Map<string, DirectCatalogOptions>();
  readonly #options: SessionListenerOptions;
  readonly #logger: Logger;
  readonly #state: StateStore;
  readonly #shutdown = new AbortController();
  readonly #inflight = new Map<string, Abortable>();
  /** Who waits for the next `tools/list` of a server (`nextToolsList`). */
  readonly #toolsListWaiters = new Map<string, Array<() => void>>();
  #closing: Promise<void> | undefined;

  private constructor(
    server: Server,
    token: string,
    catalogs: Map<string, ToolCatalog>,
    factories: Map<string, McpServerFactory>,
    options: SessionListenerOptions,
  ) {
    this.#server = server;
    this.#token = token;
    this.#port = (server.address() as AddressInfo).port;
    this.#hosts = loopbackHosts(this.#port);
    this.#catalogs = catalogs;
    this.#factories = factories;
    this.#options = options;
    this.#logger = options.logger ?? consoleLogger;
    this.#state = options.state ?? new StateStore();
    const hooks = options.ownTools ?? {};
    for (const [name, catalog] of catalogs) {
      this.#direct.set(name, { catalog, hooks, state: this.#state, logger: this.#logger });
    }
  }

  /** Validates the options, prepares the tools and starts listening on `127.0.0.1`, port chosen by the OS. */
  static async start(options: SessionListenerOptions = {}): Promise<SessionListener> {
    const limits = listenerLimits(options);
    const { catalogs, factories } = routeServers(options);
    const server = await listenOnLoopback(limits);
    const listener = new SessionListener(server, createToken(), catalogs, factories, {
      ...options,
      maxBodyBytes: limits.maxBodyBytes,
      hookTimeoutMs: limits.hookTimeoutMs,
    });
    listener.#handleServerEvents(limits);
    return listener;
  }

  /** Serves requests; bounds idle sockets; logs refused connections, server errors and malformed requests. */
  #handleServerEvents({ idleTimeoutMs, maxConnections }: ListenerLimits): void {
    const server = this.#server;
    server.on('connection', (socket: Socket) => {
      // Idle before the first request; Node's own keep-alive timer takes over between requests. No listener
      // on the request or response means Node destroys the socket when this fires.
      socket.setTimeout(idleTimeoutMs);
    });
    server.on('request', (req: IncomingMessage, res: ServerResponse) => {
      // A request is in flight: receiving it is bounded by the request timeout, answering it by nothing here.
      // Only a connection's first request still has the idle timer: Node clears its keep-alive timer itself.
      if (req.socket.timeout) req.socket.setTimeout(0);
      this.#serve(req, res);
    });
    let drops = 0;
    server.on('drop', () => {
      // Logged once per listener at warn level: a flood must not also flood the log.
      drops += 1;
      if (drops === 1)
        this.#logger.warn('listener connection limit reached; refusing connections', { maxConnections });
      else this.#logger.debug('listener refused a connection over the limit', { maxConnections, drops });
    });
    // After listen() there is no other 'error' handler: an accept failure (EMFILE…) must not crash the host.
    server.on('error', (error) => this.#logger.error('listener server error', { error: error.message }));
    server.on('clientError', (error: NodeJS.ErrnoException, socket) => {
      const timedOut = error.code === 'ERR_HTTP_REQUEST_TIMEOUT';
      this.#logger.debug(timedOut ? 'listener request timed out' : 'malformed request on the listener', {
        error: error.message,
      });
      // A timed-out client gets a 408 (as Node's default handler would) unless an answer had already started.
      const started = (socket as Socket & { _httpMessage?: ServerResponse })._httpMessage?.headersSent;
      if (timedOut && socket.writable && !started) {
        socket.end('HTTP/1.1 408 Request Timeout\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
      }
      socket.destroy();
    });
  }

  /** The TCP port on `127.0.0.1`. */
  get port(): number {
    return this.#port;
  }

  /** The session token (43 base64url characters). A secret: keep it out of logs, argv and error messages. */
  get token(): string {
    return this.#token;
  }

  /** The state shared by this session's tool calls. */
  get state(): StateStore {
    return this.#state;
  }

  /** Whether {@link SessionListener.close} has been called. */
  get closed(): boolean {
    return this.#closing !== undefined;
  }

  /** `http://127.0.0.1:<port>/<token>/<path>`; `path` is relative, e.g. `mcp/tools`. Contains the token. */
  url(path: string): string {
    return `http://${LISTENER_HOST}:${this.#port}/${this.#token}/${path.replace(/^\/+/, '')}`;
  }

  /** The MCP endpoint of `server` (for `mcp_config.json`). Contains the token. */
  mcpUrl(server: string): string {
    return this.url(`mcp/${checkedName(server)}`);
  }

  /** The hook endpoint of `event` (for `hooks.json`). Contains the token. */
  hookUrl(event: string): string {
    return this.url(`hook/${checkedName(event)}`);
  }

  /** The `tool()` catalog of `server` (served names and their provenance); `undefined` for factories. */
  catalog(server: string): ToolCatalog | undefined {
    return this.#catalogs.get(server);
  }

  /**
   * Resolves at the next `tools/list` request `server` receives (when it has been read, before it is answered):
   * agy lists a server's tools as it starts, the last of its start work an SDK can see. Never rejects; it stays
   * pending if no such request comes, so whoever waits bounds the wait.
   */
  nextToolsList(server: string): Promise<void> {
    return new Promise((resolve) => {
      const waiters = this.#toolsListWaiters.get(server);
      if (waiters) waiters.push(resolve);
      else this.#toolsListWaiters.set(server, [resolve]);
    });
  }

  readonly #onToolsList = (server: string): void => {
    const waiters = this.#toolsListWaiters.get(server);
    if (!waiters) return;
    this.#toolsListWaiters.delete(server);
    for (const resolve of waiters) resolve();
  };

  /**
   * Stops listening, aborts in-flight tool calls and hooks (their `signal`s), and closes every connection.
   * Resolves once the server is fully closed; calling it again returns the same promise.
   */
  close(): Promise<void> {
    this.#closing ??= new Promise<void>((resolve) => {
      this.#shutdown.abort(new Error('listener closed'));
      this.#server.close((error) => {
        if (error) this.#logger.warn('listener close reported an error', { error: error.message });
        resolve();
      });
      // close() alone waits for keep-alive and in-flight connections; a session's end should not.
      this.#server.closeAllConnections();
    });
    return this.#closing;
  }

  #serve(req: IncomingMessage, res: ServerResponse): void {
    this.#route(req, res).catch((error: unknown) => {
      // Usually a client that went away mid-body; the URL is never logged (it holds the token).
      this.#logger.warn('listener request failed', { method: req.method, error: describeError(error) });
      if (!res.headersSent) sendStatus(res, 500, { Connection: 'close' });
      else res.destroy();
    });
  }

  async #route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const headers = listenerHeaders(req);
    if (!isLoopbackRequest(headers, this.#hosts)) return reject(req, res, 403);
    const route = parseRoute(req.url, this.#token);
    const known =
      route !== undefined &&
      (route.kind === 'mcp'
        ? this.#catalogs.has(route.name) || this.#factories.has(route.name)
        : !!this.#options.hooks);
    if (!route || !known) return reject(req, res, 404);
    if (req.method !== 'POST') return reject(req, res, 405, { Allow: 'POST' });
    const options = this.#options;
    if (route.kind === 'hook') {
      // Awaited rather than returned: returning a promise from an async function costs two more microtask turns.
      return await handleHookRequest(route.name, req, headers, res, {
        endpoint: options.hooks!,
        hookFallback: options.hookFallback ?? defaultHookFallback,
        hookTimeoutMs: options.hookTimeoutMs!,
        maxBodyBytes: options.maxBodyBytes!,
        logger: this.#logger,
        signal: this.#shutdown.signal,
      });
    }
    return await handleMcpRequest(route.name, this.#factory(route.name), req, headers, res, {
      maxBodyBytes: options.maxBodyBytes!,
      logger: this.#logger,
      signal: this.#shutdown.signal,
      inflight: this.#inflight,
      direct: this.#direct.get(route.name),
      onExchange: options.onMcpExchange,
      // Only while someone waits: every other request skips the scan of its messages.
      onToolsList: this.#toolsListWaiters.size > 0 ? this.#onToolsList : undefined,
    });
  }

  #factory(name: string): McpServerFactory {
    const custom = this.#factories.get(name);
    if (custom) return custom;
    const catalog = this.#catalogs.get(name)!;
    // Imported on first use: the MCP SDK's `Server` loads ajv and its formats (~35 ms of `import 'agy-sdk'`),
    // and a `tool()` catalog only needs it for what the direct path does not answer (mcp-direct.ts).
    return async ({ signal }) =>
      (await import('./mcp-server.js')).createMcpServer({
        name,
        tools: catalog,
        hooks: this.#options.ownTools,
        state: this.#state,
        signal,
        logger: this.#logger,
      });
  }
}

/**
 * Answers a request turned away before its body was read. If the body is still arriving, the connection is
 * closed after the answer (Node would otherwise read and discard it until the request timeout).
 */
function reject(
  req: IncomingMessage,
  res: ServerResponse,
  status: number,
  headers: Record<string, string> = {},
): void {
  sendStatus(res, status, req.complete ? headers : { ...headers, Connection: 'close' });
}

function positiveInteger(name: string, value: number | undefined, fallback: number): number {
  const v = value ?? fallback;
  if (!Number.isSafeInteger(v) || v <= 0) throw new RangeError(`${name} must be a positive integer`);
  return v;
}

function checkedName(name: string): string {
  if (!ROUTE_NAME.test(name)) throw new TypeError(`"${name}" must match ${ROUTE_NAME}`);
  return name;
}
