/**
 * Answers the MCP requests of a `tool()` catalog directly, without building an SDK `Server` and transport per
 * request. Profiles showed the per-request `Server` lifecycle (an Ajv instance, abort-controller chains, an
 * `McpError` with a stack trace on every close) and the transport's Node → Web → Node conversion costing
 * several times the tool call itself.
 *
 * It serves exactly what a catalog's `Server` (`mcp-server.ts`) serves: `initialize`, `ping`, `tools/list`
 * and `tools/call`, each checked with the SDK's own zod request schemas (a `tools/call` in agy's plain shape by
 * hand, see `plainCallParams`: it accepts only what the schema accepts), `tools/call` results checked with
 * its `CallToolResultSchema` (as the SDK `Server` does) and run through the same `runToolCall`. Anything
 * else (another method, a task-augmented call) is left to the SDK `Server` path: see {@link isDirectBatch}.
 * The HTTP-level checks (406/415, batch size, message schema, protocol version, 202 for notifications) are
 * in `listener-mcp.ts`, shared by both paths.
 */
import {
  CallToolRequestSchema,
  CallToolResultSchema,
  ErrorCode,
  InitializeRequestSchema,
  LATEST_PROTOCOL_VERSION,
  ListToolsRequestSchema,
  PingRequestSchema,
  SUPPORTED_PROTOCOL_VERSIONS,
} from '@modelcontextprotocol/sdk/types.js';
import { isRecord } from '../../internal/guards.js';
import { describeError } from '../../logger.js';
import { runToolCall, type ToolCallSession } from './mcp-tool-call.js';
import type { ToolCatalog } from './mcp-tool-catalog.js';
import { DEFAULT_SERVER_VERSION } from './server-name.js';

/** The methods answered without an SDK `Server`. */
const DIRECT_METHODS = new Set(['initialize', 'ping', 'tools/list', 'tools/call']);

/**
 * A JSON-RPC request in agy's plain shape ({@link isPlainJsonRpcRequest}). Declared here, not taken from the
 * MCP SDK: this module's declarations are public, and must not import the SDK's.
 */
export interface PlainJsonRpcRequest {
  /** Always `2.0`. */
  jsonrpc: '2.0';
  /** The request id: a string or an integer. */
  id: string | number;
  /** The method called. */
  method: string;
  /** The parameters: a plain object without `_meta`, or absent. */
  params?: Record<string, unknown>;
}

/** A JSON-RPC response as sent back: a result or an error, for one request id. */
export type JsonRpcReply =
  | { jsonrpc: '2.0'; id: string | number; result: Record<string, unknown> }
  | {
      jsonrpc: '2.0';
      id: string | number;
      error: { code: number; message: string };
    };

/** Everything a directly answered catalog needs besides the request: the catalog and its calls' session. */
export interface DirectCatalogOptions extends ToolCallSession {
  /** The catalog served. */
  catalog: ToolCatalog;
}

/**
 * Whether every message of a POST is one the direct path answers exactly as the SDK `Server` would: requests
 * for {@link DIRECT_METHODS} (a `tools/call` without `params.task`), notifications, responses, and anything
 * malformed (the shared message validation rejects it the same way on both paths).
 */
export function isDirectBatch(messages: readonly unknown[]): boolean {
  for (const message of messages) {
    if (!isRecord(message) || typeof message.method !== 'string' || message.id === undefined) continue;
    if (!DIRECT_METHODS.has(message.method)) return false;
    if (message.method === 'tools/call' && isRecord(message.params) && message.params.task !== undefined)
      return false;
  }
  return true;
}

/**
 * Whether `message` alone is a request the direct path answers: a plain request ({@link isPlainJsonRpcRequest},
 * so the SDK's message schema accepts it) that {@link isDirectBatch} accepts. agy sends one per POST.
 */
export function isDirectRequest(message: unknown): message is PlainJsonRpcRequest {
  if (!isPlainJsonRpcRequest(message)) return false;
  const { method, params } = message as PlainJsonRpcRequest;
  return DIRECT_METHODS.has(method) && (method !== 'tools/call' || params?.task === undefined);
}

/**
 * Answers one validated JSON-RPC request of {@link DIRECT_METHODS}. Never throws: a failure is a JSON-RPC
 * error reply, as the SDK `Server` sends it (invalid parameters -32602, anything unexpected -32603).
 */
export async function answerDirect(
  request: { method: string; id: string | number },
  options: DirectCatalogOptions,
  signal: () => AbortSignal,
): Promise<JsonRpcReply> {
  const { id } = request;
  try {
    switch (request.method) {
      case 'initialize': {
        const parsed = InitializeRequestSchema.safeParse(request);
        if (!parsed.success) return invalidParams(id, `Invalid initialize request: ${parsed.error.message}`);
        const requested = parsed.data.params.protocolVersion;
        return {
          jsonrpc: '2.0',
          id,
          result: {
            // The SDK Server's negotiation: echo a supported version, else offer the latest.
            protocolVersion: SUPPORTED_PROTOCOL_VERSIONS.includes(requested)
              ? requested
              : LATEST_PROTOCOL_VERSION,
            capabilities: { tools: { listChanged: false } },
            serverInfo: { name: options.catalog.server, version: DEFAULT_SERVER_VERSION },
          },
        };
      }
      case 'ping': {
        const parsed = PingRequestSchema.safeParse(request);
        if (!parsed.success) return invalidParams(id, `Invalid ping request: ${parsed.error.message}`);
        return { jsonrpc: '2.0', id, result: {} };
      }
      case 'tools/list': {
        const parsed = ListToolsRequestSchema.safeParse(request);
        if (!parsed.success) return invalidParams(id, `Invalid tools/list request: ${parsed.error.message}`);
        return { jsonrpc: '2.0', id, result: { tools: options.catalog.list() } };
      }
      case 'tools/call': {
        let call = plainCallParams((request as { params?: unknown }).params);
        if (call === undefined) {
          const parsed = CallToolRequestSchema.safeParse(request);
          if (!parsed.success)
            return invalidParams(id, `Invalid tools/call request: ${parsed.error.message}`);
          call = { name: parsed.data.params.name, args: parsed.data.params.arguments };
        }
        const result = await runToolCall(
          options.catalog,
          { name: call.name, args: call.args, requestId: id },
          options,
          signal,
        );
        // The SDK Server checks every tools/call result before sending it; so do we (by hand for plain text).
        if (isPlainTextResult(result))
          return { jsonrpc: '2.0', id, result: result as unknown as Record<string, unknown> };
        const checked = CallToolResultSchema.safeParse(result);
        if (!checked.success) return invalidParams(id, `Invalid tools/call result: ${checked.error.message}`);
        return { jsonrpc: '2.0', id, result: checked.data };
      }
      default:
        return { jsonrpc: '2.0', id, error: { code: ErrorCode.MethodNotFound, message: 'Method not found' } };
    }
  } catch (error) {
    options.logger.error('MCP request failed', {
      server: options.catalog.server,
      error: describeError(error),
    });
    return { jsonrpc: '2.0', id, error: { code: ErrorCode.InternalError, message: 'Internal error' } };
  }
}

/**
 * The name and arguments of a `tools/call` in the shape agy sends (`params: {name, arguments?}`, nothing else the
 * schema looks at), or `undefined` for anything else, which then goes through the SDK's `CallToolRequestSchema`.
 * Everything accepted here that schema accepts too (a string `name`, `arguments` absent or a plain object, no
 * `_meta` or `task` to check), so the answer is the same; the schema's parse cost more than the tool call.
 */
function plainCallParams(
  params: unknown,
): { name: string; args: Record<string, unknown> | undefined } | undefined {
  if (!isRecord(params) || typeof params.name !== 'string') return undefined;
  if (params._meta !== undefined || params.task !== undefined) return undefined;
  const args = params.arguments;
  if (args !== undefined && !isPlainObject(args)) return undefined;
  return { name: params.name, args };
}

/**
 * Whether `message` is a JSON-RPC request in the plain shape agy sends (`{jsonrpc: '2.0', id, method, params?}`,
 * `id` a string or an integer, `params` an object without `_meta`, nothing else). Everything accepted here the
 * SDK's strict `JSONRPCRequestSchema` accepts too, so a `false` only means "ask the schema"; the schema's parse
 * cost more than the tool call's own argument check.
 */
export function isPlainJsonRpcRequest(message: unknown): boolean {
  if (!isPlainObject(message)) return false;
  for (const key in message) if (!REQUEST_KEYS.has(key)) return false;
  const { id, params } = message;
  if (message.jsonrpc !== '2.0' || typeof message.method !== 'string') return false;
  if (typeof id !== 'string' && !Number.isInteger(id)) return false;
  return params === undefined || (isPlainObject(params) && params._meta === undefined);
}

const REQUEST_KEYS = new Set(['jsonrpc', 'id', 'method', 'params']);

/**
 * Whether `result` is a tool result the way `toCallToolResult` builds one from a string or a JSON value:
 * `{content: [{type: 'text', text}], isError?}` and nothing else. The SDK's `CallToolResultSchema` accepts
 * every such result unchanged, so it is only consulted for anything richer.
 */
function isPlainTextResult(result: object): boolean {
  if (!isPlainObject(result)) return false;
  for (const key in result) if (key !== 'content' && key !== 'isError') return false;
  if (result.isError !== undefined && typeof result.isError !== 'boolean') return false;
  const content = result.content;
  if (!Array.isArray(content)) return false;
  for (const block of content) {
    if (!isPlainObject(block) || block.type !== 'text' || typeof block.text !== 'string') return false;
    for (const key in block) if (key !== 'type' && key !== 'text') return false;
  }
  return true;
}

/** An object as `JSON.parse` builds it (zod's record accepts only plain objects). */
function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (!isRecord(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

function invalidParams(id: string | number, message: string): JsonRpcReply {
  return { jsonrpc: '2.0', id, error: { code: ErrorCode.InvalidParams, message } };
}
