/**
 * An MCP server exposing a set of `tool()` definitions.
 *
 * Built on the SDK's low-level `Server` rather than `McpServer`: `McpServer` validates arguments and formats
 * errors itself, before any code of ours runs, which would hide invalid calls from the observer and the
 * policy gate. Here every `tools/call` goes through `runToolCall`, which owns validation, gating, error
 * results and observation. Calls are not serialized: each request's handler runs as soon as it arrives.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import { consoleLogger, type Logger } from '../../logger.js';
import type { ToolDefinition } from '../../model/tool.js';
import { StateStore } from '../../model/tool-context.js';
import { type OwnToolHooks, runToolCall, type ToolCallSession } from './mcp-tool-call.js';
import { ToolCatalog } from './mcp-tool-catalog.js';
import { DEFAULT_SERVER_VERSION } from './server-name.js';

export type {
  OwnToolHooks,
  OwnToolHost,
  ToolCallError,
  ToolCallErrorKind,
  ToolCallInfo,
  ToolCallObserver,
  ToolCallRecord,
  ToolCallSession,
} from './mcp-tool-call.js';
export { ToolCatalog } from './mcp-tool-catalog.js';
export { DEFAULT_SERVER_VERSION } from './server-name.js';

/**
 * One JSON Schema validator for every server built here. Without it the SDK `Server` builds (and compiles
 * formats into) a fresh Ajv per instance, and the listener's stateless mode builds a server per request:
 * profiled at ~340 µs of a ~790 µs call.
 */
let sharedValidator: AjvJsonSchemaValidator | undefined;

function sharedJsonSchemaValidator(): AjvJsonSchemaValidator {
  sharedValidator ??= new AjvJsonSchemaValidator();
  return sharedValidator;
}

/** Options of {@link createMcpServer}. */
export interface McpToolServerOptions {
  /** The server's name (`serverInfo.name`, and the `server` of each call's provenance). */
  name: string;
  /** `serverInfo.version`; default {@link DEFAULT_SERVER_VERSION}. */
  version?: string | undefined;
  /** The tools, or a catalog prepared once for many servers (the listener's per-request servers share one). */
  tools: readonly ToolDefinition[] | ToolCatalog;
  /** The host (its gate, its end of a call, the tool context) and an observer, passed whole to every call. */
  hooks?: OwnToolHooks | undefined;
  /** The session's tool state; a fresh store when omitted. */
  state?: StateStore | undefined;
  /** Aborts every call's `ctx.signal` when the host goes away (in addition to MCP cancellation). */
  signal?: AbortSignal | undefined;
  /** Where failures are reported; default prints warnings and errors. */
  logger?: Logger | undefined;
}

/** Builds an MCP server serving `options.tools`; connect it to any SDK transport. */
export function createMcpServer(options: McpToolServerOptions): Server {
  const catalog =
    options.tools instanceof ToolCatalog ? options.tools : new ToolCatalog(options.name, options.tools);
  const state = options.state ?? new StateStore();
  const session: ToolCallSession = {
    hooks: options.hooks ?? {},
    state,
    logger: options.logger ?? consoleLogger,
  };
  // The low-level Server is deprecated for ordinary use only; see the file comment for why we need it.
  const server = new Server(
    { name: options.name, version: options.version ?? DEFAULT_SERVER_VERSION },
    {
      capabilities: { tools: { listChanged: false } },
      jsonSchemaValidator: sharedJsonSchemaValidator(),
    },
  );
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: catalog.list() }));
  server.setRequestHandler(CallToolRequestSchema, (request, extra) =>
    runToolCall(
      catalog,
      { name: request.params.name, args: request.params.arguments, requestId: extra.requestId },
      session,
      options.signal ? AbortSignal.any([extra.signal, options.signal]) : extra.signal,
    ),
  );
  return server;
}
