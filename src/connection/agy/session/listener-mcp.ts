/**
 * `POST /<token>/mcp/<server>`: Streamable HTTP MCP, stateless and in JSON response mode.
 *
 * agy's HTTP MCP client reportedly fails against servers that require `Mcp-Session-Id`, so no session is
 * kept: following the SDK's stateless pattern, every POST gets a fresh server and transport
 * (`sessionIdGenerator: undefined`), answered with plain JSON (`enableJsonResponse: true`), or 202 for a
 * notification. Cancellation cannot reach a call through a fresh server, so the listener keeps its own
 * table of in-flight requests and aborts the matching one when `notifications/cancelled` arrives.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isRecord } from '../../../internal/guards.js';
import { exceedsJsonDepth, MAX_JSON_DEPTH } from '../../../internal/json-depth.js';
import { describeError, type Logger } from '../../../logger.js';
import { readBody } from './listener-body.js';
import { sendJsonRpcError } from './listener-http.js';

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
  inflight: Map<string, AbortController>;
}

/** Serves one MCP POST. */
export async function handleMcpRequest(
  server: string,
  factory: McpServerFactory,
  req: IncomingMessage,
  res: ServerResponse,
  options: McpRouteOptions,
): Promise<void> {
  const body = await readBody(req, options.maxBodyBytes);
  if (!body.ok) {
    res.setHeader('Connection', 'close');
    sendJsonRpcError(res, 413, -32000, `Request body exceeds ${options.maxBodyBytes} bytes`);
    return;
  }
  let message: unknown;
  try {
    message = JSON.parse(body.body.toString('utf8'));
  } catch (error) {
    options.logger.debug('MCP request body is not JSON', { server, error: describeError(error) });
    sendJsonRpcError(res, 400, -32700, 'Parse error: invalid JSON');
    return;
  }
  // Tool arguments reach zod and user handlers, which walk them recursively: bound their depth here.
  if (exceedsJsonDepth(message)) {
    options.logger.debug('MCP request nests too deep', { server });
    sendJsonRpcError(res, 400, -32600, `Invalid Request: JSON nests deeper than ${MAX_JSON_DEPTH} levels`);
    return;
  }
  const messages = Array.isArray(message) ? message : [message];
  cancelRequested(server, messages, options);

  const controller = new AbortController();
  const onListenerClose = () => controller.abort(new Error('listener closed'));
  options.signal.addEventListener('abort', onListenerClose, { once: true });
  const keys = requestIds(messages).map((id) => inflightKey(server, id));
  for (const key of keys) options.inflight.set(key, controller);

  let mcp: McpServerLike | undefined;
  let done = false;
  const closeServer = (instance: McpServerLike) =>
    instance
      .close()
      .catch((error: unknown) =>
        options.logger.warn('closing a per-request MCP server failed', { server, error }),
      );
  res.on('close', () => {
    done = true;
    if (!res.writableFinished) controller.abort(new Error('MCP client went away'));
    options.signal.removeEventListener('abort', onListenerClose);
    for (const key of keys) if (options.inflight.get(key) === controller) options.inflight.delete(key);
    if (mcp) void closeServer(mcp);
  });

  try {
    const instance = await factory({ server, signal: controller.signal });
    // The client may have gone while the factory ran; nothing else would close this server then.
    if (done) {
      await closeServer(instance);
      return;
    }
    mcp = instance;
    // Stateless (no Mcp-Session-Id): no `sessionIdGenerator`, which the SDK reads as `undefined`.
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
