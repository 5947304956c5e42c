/**
 * `POST /<token>/mcp/<server>`: Streamable HTTP MCP, stateless and in JSON response mode.
 *
 * agy's HTTP MCP client reportedly fails against servers that require `Mcp-Session-Id`, so no session is
 * kept. Every POST first passes the SDK transport's own checks (body limit, 406 without JSON and SSE in
 * `Accept`, 415 without a JSON `Content-Type`, JSON depth). Then:
 * - a `tool()` catalog's `initialize`/`ping`/`tools/list`/`tools/call` are answered directly
 *   (`mcp-direct.ts`), after the rest of the transport's checks (batch limit, the SDK's JSON-RPC message
 *   schema, one initialize per POST, the protocol-version header), with 202 for notifications;
 * - anything else, and every factory-built server, follows the SDK's stateless pattern: a fresh server and
 *   transport per POST (`sessionIdGenerator: undefined`), answered with plain JSON (`enableJsonResponse`).
 * Cancellation cannot reach a call through a fresh server, so the listener keeps its own table of in-flight
 * requests and aborts the matching one when `notifications/cancelled` arrives.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { MAX_BATCH_SIZE } from '@modelcontextprotocol/sdk/server/requestBody.js';
import { isJsonContentType } from '@modelcontextprotocol/sdk/shared/mediaType.js';
import {
  JSONRPCMessageSchema,
  type JSONRPCRequest,
  SUPPORTED_PROTOCOL_VERSIONS,
} from '@modelcontextprotocol/sdk/types.js';
import { isRecord } from '../../internal/guards.js';
import { exceedsJsonDepth, MAX_JSON_DEPTH, mayExceedJsonDepth } from '../../internal/json-depth.js';
import { describeError, type Logger } from '../../logger.js';
import { readBody } from './listener-body.js';
import { sendJson, sendJsonRpcError } from './listener-http.js';
import {
  answerDirect,
  type DirectCatalogOptions,
  isDirectBatch,
  isDirectRequest,
  isPlainJsonRpcRequest,
  type PlainJsonRpcRequest,
} from './mcp-direct.js';
import type { ListenerHeaders } from './request-headers.js';

/**
 * The part of the SDK's `Transport` the listener's type needs. Structural, so these declarations do not pull
 * in the SDK's, which need DOM lib types (fetch headers) a Node-only consumer does not have.
 */
export interface McpTransportLike {
  /** Starts processing messages. */
  start(): Promise<void>;
  /** Sends one JSON-RPC message. */
  send(message: unknown, options?: unknown): Promise<void>;
  /** Closes the connection. */
  close(): Promise<void>;
}

/** What the listener needs of an MCP server: the SDK's `McpServer` and `Server` both fit. */
export interface McpServerLike {
  /** Attaches the server to a transport. */
  connect(transport: McpTransportLike): Promise<void>;
  /** Detaches it; called when the request's response is done. */
  close(): Promise<void>;
}

/** The argument of an {@link McpServerFactory}. */
export interface McpServerFactoryContext {
  /** The server name from the request path. */
  server: string;
  /** Aborted when the request is cancelled, its client went away, or the listener is closing. */
  signal: AbortSignal;
}

/** Builds the MCP server for one request (a fresh one each time, as stateless mode requires). */
export type McpServerFactory = (context: McpServerFactoryContext) => McpServerLike | Promise<McpServerLike>;

/** What {@link handleMcpRequest} needs from the listener. */
export interface McpRouteOptions {
  /** The largest body read. */
  maxBodyBytes: number;
  /** Where failures are reported. */
  logger: Logger;
  /** Aborted when the listener closes. */
  signal: AbortSignal;
  /** In-flight requests of all servers, by {@link inflightKey}. */
  inflight: Map<string, Abortable>;
  /**
   * Set for a `tool()` catalog: its `initialize`, `ping`, `tools/list` and `tools/call` are answered directly
   * (`mcp-direct.ts`) instead of through a per-request SDK `Server` built by the factory.
   */
  direct?: DirectCatalogOptions | undefined;
  /** Sees each answered request: its JSON body, the status and the JSON answer (a cassette recorder). */
  onExchange?: McpExchangeObserver | undefined;
  /** Called when a `tools/list` request (alone or in a batch) has been read, before it is answered. */
  onToolsList?: ((server: string) => void) | undefined;
}

/** Sees one answered MCP POST (`response` is `null` for an empty or non-JSON answer). */
export type McpExchangeObserver = (
  server: string,
  request: unknown,
  status: number,
  response: unknown,
) => void;

/** Collects what is written to `res` and reports it with `request` once the answer ends. */
function observeAnswer(
  res: ServerResponse,
  server: string,
  request: unknown,
  observe: McpExchangeObserver,
  logger: Logger,
): void {
  const chunks: Buffer[] = [];
  const keep = (chunk: unknown, encoding?: unknown) => {
    if (chunk === undefined || chunk === null || typeof chunk === 'function') return;
    chunks.push(
      Buffer.isBuffer(chunk)
        ? chunk
        : Buffer.from(chunk as string, typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8'),
    );
  };
  const write = res.write;
  const end = res.end;
  res.write = function (this: ServerResponse, chunk: unknown, ...rest: unknown[]) {
    keep(chunk, rest[0]);
    return (write as (...a: unknown[]) => boolean).call(this, chunk, ...rest);
  } as typeof res.write;
  res.end = function (this: ServerResponse, chunk?: unknown, ...rest: unknown[]) {
    keep(chunk, rest[0]);
    const text = Buffer.concat(chunks).toString('utf8');
    let response: unknown = null;
    if (text !== '') {
      try {
        response = JSON.parse(text);
      } catch {
        response = text;
      }
    }
    try {
      observe(server, request, res.statusCode, response);
    } catch (error) {
      logger.error('the MCP exchange observer threw; the SDK carried on without it', error);
    }
    return (end as (...a: unknown[]) => ServerResponse).call(this, chunk, ...rest);
  } as typeof res.end;
}

/** Serves one MCP POST. */
export async function handleMcpRequest(
  server: string,
  factory: McpServerFactory,
  req: IncomingMessage,
  headers: ListenerHeaders,
  res: ServerResponse,
  options: McpRouteOptions,
): Promise<void> {
  const body = await readBody(req, options.maxBodyBytes, headers.contentLength);
  if (!body.ok) {
    res.setHeader('Connection', 'close');
    sendJsonRpcError(res, 413, -32000, `Request body exceeds ${options.maxBodyBytes} bytes`);
    return;
  }
  // The SDK transport's own checks, in its order and with its answers, so both paths reject alike.
  const accept = headers.accept;
  if (!accept?.includes('application/json') || !accept.includes('text/event-stream')) {
    options.logger.debug('MCP request does not accept JSON and SSE', { server });
    sendJsonRpcError(res, 406, -32000, NOT_ACCEPTABLE);
    return;
  }
  const contentType = headers.contentType;
  // agy's exact header is answered without parsing it; anything else goes through the SDK's own check.
  if (contentType !== 'application/json' && !isJsonContentType(contentType)) {
    options.logger.debug('MCP request is not application/json', { server });
    sendJsonRpcError(res, 415, -32000, UNSUPPORTED_MEDIA_TYPE);
    return;
  }
  let message: unknown;
  const text = body.body.toString('utf8');
  try {
    message = JSON.parse(text);
  } catch (error) {
    options.logger.debug('MCP request body is not JSON', { server, error: describeError(error) });
    sendJsonRpcError(res, 400, -32700, 'Parse error: invalid JSON');
    return;
  }
  // Tool arguments reach zod and user handlers, which walk them recursively: bound their depth here.
  if (mayExceedJsonDepth(text) && exceedsJsonDepth(message)) {
    options.logger.debug('MCP request nests too deep', { server });
    sendJsonRpcError(res, 400, -32600, `Invalid Request: JSON nests deeper than ${MAX_JSON_DEPTH} levels`);
    return;
  }
  if (options.onExchange) observeAnswer(res, server, message, options.onExchange, options.logger);
  // agy's usual POST: one plain request for the direct path, answered without the batch machinery.
  if (options.direct && isDirectRequest(message)) {
    await serveDirectRequest(server, options.direct, message, headers, res, options);
    return;
  }
  const messages = Array.isArray(message) ? message : [message];
  cancelRequested(server, messages, options);
  if (
    options.onToolsList &&
    messages.some((m) => (m as { method?: unknown } | null)?.method === 'tools/list')
  )
    options.onToolsList(server);

  if (options.direct && isDirectBatch(messages)) {
    await serveDirect(server, options.direct, messages, Array.isArray(message), headers, res, options);
    return;
  }
  const call = track(server, messages, res, options);
  try {
    const instance = await factory({ server, signal: call.signal });
    // The client may have gone while the factory ran; nothing else would close this server then.
    if (!call.adopt(instance)) return;
    // Stateless (no Mcp-Session-Id): no `sessionIdGenerator`, which the SDK reads as `undefined`.
    const { StreamableHTTPServerTransport } = await loadServerTransport();
    const transport = new StreamableHTTPServerTransport({ enableJsonResponse: true });
    // Protocol-level rejections (406, 415, …) are answered to the client; they are only worth a debug line.
    transport.onerror = (error) =>
      options.logger.debug('MCP transport error', { server, error: error.message });
    await instance.connect(transport);
    await transport.handleRequest(req, res, message);
  } catch (error) {
    options.logger.error('MCP request failed', { server, error: describeError(error) });
    sendJsonRpcError(res, 500, -32603, 'Internal error');
  }
}

/**
 * The MCP SDK's server transport, imported on first use: it imports `@hono/node-server`, which touches Node's
 * `Headers`, `Request` and `Response` globals when it loads, and the first touch loads all of undici (~28 ms of
 * CPU). A `tool()` catalog is answered directly and never needs it, so `import 'agy-sdk'` should not pay that.
 */
let serverTransport: Promise<typeof import('@modelcontextprotocol/sdk/server/streamableHttp.js')> | undefined;
function loadServerTransport(): Promise<typeof import('@modelcontextprotocol/sdk/server/streamableHttp.js')> {
  serverTransport ??= import('@modelcontextprotocol/sdk/server/streamableHttp.js');
  return serverTransport;
}

const NOT_ACCEPTABLE = 'Not Acceptable: Client must accept both application/json and text/event-stream';
const UNSUPPORTED_MEDIA_TYPE = 'Unsupported Media Type: Content-Type must be application/json';

/**
 * The rest of the SDK transport's POST handling (batch limit, JSON-RPC message schema, one initialize per
 * POST, protocol-version header, 202 for notifications and responses) with the answers of
 * {@link answerDirect}: one JSON object for one request, an array for several.
 */
async function serveDirect(
  server: string,
  direct: DirectCatalogOptions,
  messages: unknown[],
  batch: boolean,
  headers: ListenerHeaders,
  res: ServerResponse,
  options: McpRouteOptions,
): Promise<void> {
  const reject = (status: number, code: number, text: string) => {
    options.logger.debug('MCP request rejected', { server, status, error: text });
    sendJsonRpcError(res, status, code, text);
  };
  if (batch && messages.length > MAX_BATCH_SIZE)
    return reject(400, -32600, `Invalid Request: Batch must not exceed ${MAX_BATCH_SIZE} messages`);
  for (const message of messages) {
    if (!isPlainJsonRpcRequest(message) && !JSONRPCMessageSchema.safeParse(message).success)
      return reject(400, -32700, 'Parse error: Invalid JSON-RPC message');
  }
  // Validated above: a message with a method and an id is a request (the SDK's `isJSONRPCRequest`, without
  // parsing it a second time).
  const requests = messages.filter(
    (m): m is JSONRPCRequest => isRecord(m) && typeof m.method === 'string' && m.id !== undefined,
  );
  if (requests.some((r) => r.method === 'initialize')) {
    if (messages.length > 1)
      return reject(400, -32600, 'Invalid Request: Only one initialization request is allowed');
  } else if (!protocolVersionSupported(headers)) {
    return rejectProtocolVersion(server, headers, res, options);
  }
  if (requests.length === 0) {
    // Notifications and responses only; cancellations were routed above, nothing else needs an answer.
    res.writeHead(202).end();
    return;
  }
  const ids = requests.map((r) => r.id);
  const replies = await answerInFlight<unknown>(server, ids, res, options, (signal) =>
    requests.length === 1
      ? answerDirect(requests[0]!, direct, signal)
      : Promise.all(requests.map((r) => answerDirect(r, direct, signal))),
  );
  sendJson(res, 200, replies);
}

/**
 * {@link serveDirect} for one request that {@link isDirectRequest} accepts (so it is a valid message: no
 * schema parse, no notifications, no batch): the same checks and answer, without the batch's arrays.
 */
async function serveDirectRequest(
  server: string,
  direct: DirectCatalogOptions,
  request: PlainJsonRpcRequest,
  headers: ListenerHeaders,
  res: ServerResponse,
  options: McpRouteOptions,
): Promise<void> {
  if (request.method === 'tools/list') options.onToolsList?.(server);
  else if (request.method !== 'initialize' && !protocolVersionSupported(headers))
    return rejectProtocolVersion(server, headers, res, options);
  sendJson(
    res,
    200,
    await answerInFlight(server, [request.id], res, options, (signal) =>
      answerDirect(request, direct, signal),
    ),
  );
}

/**
 * Runs `answer` with the POST's requests (`ids`) in the in-flight table, where `notifications/cancelled` finds
 * them, until the answer is made: then a cancellation has nothing left to stop. The response is watched only
 * if the work reads its signal (a {@link TrackedCall} given `res`); nothing is left on it otherwise.
 */
async function answerInFlight<T>(
  server: string,
  ids: ReadonlyArray<string | number>,
  res: ServerResponse,
  options: McpRouteOptions,
  answer: (signal: () => AbortSignal) => Promise<T>,
): Promise<T> {
  const call = new TrackedCall(server, options, res);
  const keys = ids.map((id) => inflightKey(server, id));
  for (const key of keys) options.inflight.set(key, call);
  try {
    return await answer(() => call.signal);
  } finally {
    for (const key of keys) if (options.inflight.get(key) === call) options.inflight.delete(key);
  }
}

/** Whether the `Mcp-Protocol-Version` header, if sent, names a version the MCP SDK supports. */
function protocolVersionSupported(headers: ListenerHeaders): boolean {
  const version = headers.protocolVersion;
  return version === undefined || SUPPORTED_PROTOCOL_VERSIONS.includes(version);
}

/** The SDK transport's answer to an unsupported `Mcp-Protocol-Version`. */
function rejectProtocolVersion(
  server: string,
  headers: ListenerHeaders,
  res: ServerResponse,
  options: McpRouteOptions,
): void {
  const text = `Bad Request: Unsupported protocol version: ${headers.protocolVersion} (supported versions: ${SUPPORTED_PROTOCOL_VERSIONS.join(', ')})`;
  options.logger.debug('MCP request rejected', { server, status: 400, error: text });
  sendJsonRpcError(res, 400, -32000, text);
}

/** What the in-flight table holds for a request: something to abort when it is cancelled. */
export interface Abortable {
  /** Aborts the request's work with `reason`. */
  abort(reason?: unknown): void;
}

/**
 * A POST's in-flight entry. Its `AbortController` is only created when someone reads `signal` (a handler
 * reading `ctx.signal`, an SDK server factory): creating one and hooking it to the listener's shutdown costs
 * ~8 µs, a tenth of a whole tool call, and most handlers never look. An abort before that is remembered.
 *
 * Given `res` (a directly answered POST, {@link answerInFlight}), it also watches the response only from then
 * on: a client gone before the signal was read is seen on `res.closed`, one that goes later by the `close`
 * event. Otherwise (an SDK server's POST, whose server closes with the response) {@link track} calls
 * {@link TrackedCall.done} when the response closes.
 */
class TrackedCall implements Abortable {
  readonly #options: McpRouteOptions;
  readonly #server: string;
  readonly #res: ServerResponse | undefined;
  #controller: AbortController | undefined;
  #onShutdown: (() => void) | undefined;
  #reason: unknown;
  #aborted = false;
  #done = false;
  #mcp: McpServerLike | undefined;

  constructor(server: string, options: McpRouteOptions, res?: ServerResponse) {
    this.#server = server;
    this.#options = options;
    this.#res = res;
  }

  /** Aborted when the request is cancelled, its client goes away, or the listener closes. */
  get signal(): AbortSignal {
    if (this.#controller === undefined) {
      this.#controller = new AbortController();
      const res = this.#res;
      if (res !== undefined) {
        if (res.closed) this.done(res.writableFinished);
        else res.once('close', () => this.done(res.writableFinished));
      }
      const shutdown = this.#options.signal;
      if (this.#aborted) this.#controller.abort(this.#reason);
      else if (shutdown.aborted) this.abort(new Error('listener closed'));
      else if (!this.#done) {
        this.#onShutdown = () => this.abort(new Error('listener closed'));
        shutdown.addEventListener('abort', this.#onShutdown, { once: true });
      }
    }
    return this.#controller.signal;
  }

  abort(reason?: unknown): void {
    if (this.#aborted) return;
    this.#aborted = true;
    this.#reason = reason;
    this.#controller?.abort(reason);
  }

  /** Hands over the per-request server to close with the response; false (and closed) if already done. */
  adopt(instance: McpServerLike): boolean {
    if (this.#done) {
      void this.#closeServer(instance);
      return false;
    }
    this.#mcp = instance;
    return true;
  }

  /** The response closed: abort unless it was fully sent, release the server and the shutdown hook. */
  done(finished: boolean): void {
    this.#done = true;
    if (!finished) this.abort(new Error('MCP client went away'));
    if (this.#onShutdown !== undefined) this.#options.signal.removeEventListener('abort', this.#onShutdown);
    if (this.#mcp) void this.#closeServer(this.#mcp);
  }

  #closeServer(instance: McpServerLike): Promise<void> {
    return instance
      .close()
      .catch((error: unknown) =>
        this.#options.logger.warn('closing a per-request MCP server failed', { server: this.#server, error }),
      );
  }
}

/** Registers an SDK server's POST for cancellation; undone when the response closes (the server closes with it). */
function track(
  server: string,
  messages: unknown[],
  res: ServerResponse,
  options: McpRouteOptions,
): TrackedCall {
  const call = new TrackedCall(server, options);
  const ids = requestIds(messages);
  if (ids.length === 1) {
    // The usual POST: one request, one key, no arrays.
    const key = inflightKey(server, ids[0]!);
    options.inflight.set(key, call);
    res.on('close', () => {
      call.done(res.writableFinished);
      if (options.inflight.get(key) === call) options.inflight.delete(key);
    });
    return call;
  }
  const keys = ids.map((id) => inflightKey(server, id));
  for (const key of keys) options.inflight.set(key, call);
  res.on('close', () => {
    call.done(res.writableFinished);
    for (const key of keys) if (options.inflight.get(key) === call) options.inflight.delete(key);
  });
  return call;
}

/** The in-flight table key of a request id on a server. */
export function inflightKey(server: string, id: string | number): string {
  return `${server}\u0000${typeof id}\u0000${id}`;
}

function requestIds(messages: unknown[]): Array<string | number> {
  const ids: Array<string | number> = [];
  for (const message of messages) {
    if (!isRecord(message) || typeof message.method !== 'string') continue;
    if (typeof message.id === 'string' || typeof message.id === 'number') ids.push(message.id);
  }
  return ids;
}

function cancelRequested(server: string, messages: unknown[], options: McpRouteOptions): void {
  for (const message of messages) {
    if (!isRecord(message) || message.method !== 'notifications/cancelled' || !isRecord(message.params))
      continue;
    const { requestId, reason } = message.params;
    if (typeof requestId !== 'string' && typeof requestId !== 'number') continue;
    const text = typeof reason === 'string' ? reason : 'cancelled by the MCP client';
    options.inflight.get(inflightKey(server, requestId))?.abort(new Error(text));
  }
}
