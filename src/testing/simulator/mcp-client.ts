/**
 * The simulator's MCP client: JSON-RPC 2.0 over Streamable HTTP (`http-fetch.ts`) or stdio, what agy, one Go
 * binary, does with its configured servers. The official TypeScript SDK's client did this before, but loading it
 * cost every simulator with own tools 40–60 ms of CPU after `init` (its zod schemas are built as it loads, its
 * messages parsed through them), an artefact real agy does not pay: in a start storm it was a third of the CPU on
 * the machine (bench/many-agents.mjs). The SDK's client stays the real peer of the SDK's own listener in
 * test/connection/tool-server, and Gemini CLI's is the one the end-to-end tests drive.
 *
 * What it does is what the SDK's client did for the simulator, message for message, but one: `initialize` with the
 * latest protocol version (a server answering one not in {@link SUPPORTED_PROTOCOL_VERSIONS} is refused), then
 * `notifications/initialized`; a request times out after {@link DEFAULT_REQUEST_TIMEOUT_MS} unless told; an
 * aborted call sends `notifications/cancelled`; a server's `ping` is answered, any other request it makes gets
 * "Method not found"; an error answer is an {@link McpError} with the SDK's message. Over HTTP: every message is
 * a POST accepting JSON or SSE (a 307 or 308 within the origin followed), `Mcp-Session-Id` is kept from the answer that set it and `MCP-Protocol-Version`
 * is sent after `initialize`. The one difference: no GET stream is opened, so a server's request outside a call
 * (which the SDK's server sends only on that stream) never arrives. agy is reported to fail even with servers that
 * require a session id (docs/reference/mcp.md#streamable-http), and the SDK's own listener sends no such request. Over stdio:
 * newline-delimited JSON, and `close()` ends stdin, then SIGTERM, then SIGKILL, 2 s apart.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import type { JsonSchemaType, JsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/types.js';
import { settlesWithin } from '../../internal/timing.js';
import type { FetchFunction, HttpFetchResponse } from './http-fetch.js';
import { LineSplitter } from './input.js';
import { AjvJsonSchemaValidator } from './lazy-ajv-provider.js';

/** The output-schema validator, made on the first check: one per process, as its compiled schemas are cached. */
let validator: AjvJsonSchemaValidator | undefined;

/** The protocol version the client asks for: the MCP SDK's latest (a test holds them equal). */
export const LATEST_PROTOCOL_VERSION = '2025-11-25';
/** The versions the client accepts in a server's `initialize` answer: the MCP SDK's list. */
export const SUPPORTED_PROTOCOL_VERSIONS: readonly string[] = [
  LATEST_PROTOCOL_VERSION,
  '2025-06-18',
  '2025-03-26',
  '2024-11-05',
  '2024-10-07',
];
/** A request's bound when none is given: the MCP SDK's default (`DEFAULT_REQUEST_TIMEOUT_MSEC`). */
export const DEFAULT_REQUEST_TIMEOUT_MS = 60_000;

/** JSON-RPC error codes the client itself raises (the MCP SDK's `ErrorCode`). */
export const ErrorCode = {
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InvalidRequest: -32600,
  ConnectionClosed: -32000,
  RequestTimeout: -32001,
} as const;

/** A JSON-RPC error answer, or one the client raises; the message reads as the MCP SDK's `McpError`. */
export class McpError extends Error {
  constructor(
    /** The JSON-RPC error code. */
    readonly code: number,
    message: string,
    /** The error's `data`, when the server sent one. */
    readonly data?: unknown,
  ) {
    super(`MCP error ${code}: ${message}`);
    this.name = 'McpError';
  }
}

/** Any JSON-RPC message, as read: requests, notifications and answers. */
interface RpcMessage {
  jsonrpc?: unknown;
  id?: unknown;
  method?: unknown;
  params?: unknown;
  result?: unknown;
  error?: { code?: unknown; message?: unknown; data?: unknown };
}

/** How a message reaches a server and answers come back. */
export interface McpChannel {
  /**
   * Sends one message; for HTTP the answer's messages reach `onmessage` before this resolves. A request's POST is
   * not aborted with its call, as the SDK's client does not: the server learns of it from
   * `notifications/cancelled` and answers.
   */
  send(message: object): Promise<void>;
  /** Closes the channel; `onclose` follows. */
  close(): Promise<void>;
  /** Told the negotiated protocol version (HTTP sends it as a header). */
  setProtocolVersion?(version: string): void;
  /** Set by the client: every message from the server. */
  onmessage?: (message: RpcMessage) => void;
  /** Set by the client: the channel is gone (a stdio process exited, or `close()`). */
  onclose?: () => void;
}

/** One MCP tool as `tools/list` gives it. */
export interface McpTool {
  /** The tool's name on its server. */
  name: string;
  /** Its description, when listed with one. */
  description?: string;
  /** Its input JSON Schema as listed. */
  inputSchema?: unknown;
  /** Its output JSON Schema, when it declares one: its calls' `structuredContent` is checked against it. */
  outputSchema?: unknown;
}

/** A request waiting for its answer. */
interface Pending {
  resolve(result: Record<string, unknown>): void;
  reject(error: unknown): void;
  timer: NodeJS.Timeout;
}

/** An MCP client session over one channel. */
export class McpClient {
  readonly #info: { name: string; version: string };
  #channel: McpChannel | undefined;
  #nextId = 0;
  readonly #pending = new Map<number, Pending>();
  #closed = false;
  /** The `outputSchema` of each listed tool that has one, and its check once compiled. */
  readonly #outputSchemas = new Map<string, { schema: unknown; check?: JsonSchemaValidator<unknown> }>();
  /** Called once when the channel closes. */
  onclose: (() => void) | undefined;

  constructor(info: { name: string; version: string }) {
    this.#info = info;
  }

  /** Runs the `initialize` handshake over `channel`, bounded by `timeoutMs`. */
  async connect(channel: McpChannel, timeoutMs: number): Promise<void> {
    this.#channel = channel;
    channel.onmessage = (message) => this.#receive(message);
    channel.onclose = () => this.#onChannelClosed();
    const result = await this.request(
      'initialize',
      { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: {}, clientInfo: this.#info },
      { timeoutMs },
    );
    const version = result.protocolVersion;
    if (typeof version !== 'string' || !SUPPORTED_PROTOCOL_VERSIONS.includes(version))
      throw new Error(`Server's protocol version is not supported: ${String(version)}`);
    channel.setProtocolVersion?.(version);
    await channel.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  }

  /** Every page of `tools/list`, each bounded by `timeoutMs`. */
  async listTools(timeoutMs: number): Promise<McpTool[]> {
    const tools: McpTool[] = [];
    let cursor: string | undefined;
    do {
      const page = await this.request('tools/list', cursor === undefined ? {} : { cursor }, { timeoutMs });
      if (!Array.isArray(page.tools))
        throw new McpError(ErrorCode.InvalidParams, 'tools/list: no tools array');
      for (const tool of page.tools as unknown[]) {
        const t = tool as Record<string, unknown> | null;
        if (typeof t?.name !== 'string')
          throw new McpError(ErrorCode.InvalidParams, 'tools/list: a tool without a name');
        if (t.outputSchema !== undefined) this.#outputSchemas.set(t.name, { schema: t.outputSchema });
        tools.push({
          name: t.name,
          ...(typeof t.description === 'string' ? { description: t.description } : {}),
          inputSchema: t.inputSchema,
          ...(t.outputSchema !== undefined ? { outputSchema: t.outputSchema } : {}),
        });
      }
      cursor = typeof page.nextCursor === 'string' ? page.nextCursor : undefined;
    } while (cursor !== undefined);
    return tools;
  }

  /**
   * `tools/call`; an abort of `signal` cancels it at the server and rejects with the signal's reason. A tool
   * listed with an `outputSchema` must answer `structuredContent` that holds to it (unless `isError`), checked
   * by the MCP SDK's own validator, loaded on the first such check (`lazy-ajv-provider.ts`).
   */
  async callTool(
    name: string,
    args: Record<string, unknown>,
    signal: AbortSignal,
  ): Promise<Record<string, unknown>> {
    const result = await this.request('tools/call', { name, arguments: args }, { signal });
    const output = this.#outputSchemas.get(name);
    if (output === undefined) return result;
    if (!result.structuredContent && !result.isError)
      throw new McpError(
        ErrorCode.InvalidRequest,
        `Tool ${name} has an output schema but did not return structured content`,
      );
    if (result.structuredContent) {
      let check: { valid: boolean; errorMessage?: string | undefined };
      try {
        validator ??= new AjvJsonSchemaValidator();
        output.check ??= validator.getValidator(output.schema as JsonSchemaType);
        check = output.check(result.structuredContent);
      } catch (error) {
        throw new McpError(
          ErrorCode.InvalidParams,
          `Failed to validate structured content: ${error instanceof Error ? error.message : String(error)}`,
        );
      }
      if (!check.valid)
        throw new McpError(
          ErrorCode.InvalidParams,
          `Structured content does not match the tool's output schema: ${check.errorMessage}`,
        );
    }
    return result;
  }

  /** Sends a request and resolves with its `result`. */
  request(
    method: string,
    params: Record<string, unknown>,
    options: { timeoutMs?: number; signal?: AbortSignal } = {},
  ): Promise<Record<string, unknown>> {
    const channel = this.#channel;
    if (!channel || this.#closed)
      return Promise.reject(new McpError(ErrorCode.ConnectionClosed, 'Not connected'));
    const { signal } = options;
    if (signal?.aborted) return Promise.reject(signal.reason);
    const id = this.#nextId++;
    return new Promise<Record<string, unknown>>((resolve, reject) => {
      const onAbort = () => {
        if (!this.#settle(id)) return;
        cancel(channel, id, String(signal?.reason));
        reject(signal?.reason);
      };
      const done = () => signal?.removeEventListener('abort', onAbort);
      const timeoutMs = options.timeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
      const timer = setTimeout(() => {
        if (!this.#settle(id)) return;
        done();
        cancel(channel, id, 'timed out');
        reject(new McpError(ErrorCode.RequestTimeout, 'Request timed out', { timeout: timeoutMs }));
      }, timeoutMs);
      this.#pending.set(id, {
        resolve: (result) => {
          done();
          resolve(result);
        },
        reject: (error) => {
          done();
          reject(error);
        },
        timer,
      });
      signal?.addEventListener('abort', onAbort, { once: true });
      channel.send({ jsonrpc: '2.0', id, method, params }).catch((error: unknown) => {
        this.#settle(id)?.reject(error);
      });
    });
  }

  /** Closes the channel; requests still waiting fail with "Connection closed". */
  async close(): Promise<void> {
    await this.#channel?.close();
    this.#onChannelClosed();
  }

  /** Takes a pending request out (its timer stopped); undefined if it was already settled. */
  #settle(id: number): Pending | undefined {
    const pending = this.#pending.get(id);
    if (!pending) return undefined;
    this.#pending.delete(id);
    clearTimeout(pending.timer);
    return pending;
  }

  #receive(message: RpcMessage): void {
    if (typeof message.method === 'string') {
      // A request from the server (it has an id) is answered; its notifications need nothing.
      if (message.id === undefined || message.id === null) return;
      const answer =
        message.method === 'ping'
          ? { jsonrpc: '2.0', id: message.id, result: {} }
          : {
              jsonrpc: '2.0',
              id: message.id,
              error: { code: ErrorCode.MethodNotFound, message: 'Method not found' },
            };
      void this.#channel?.send(answer).catch(() => {});
      return;
    }
    if (typeof message.id !== 'number') return;
    const pending = this.#settle(message.id);
    if (!pending) return;
    if (message.error !== undefined) {
      const { code, message: text, data } = message.error ?? {};
      pending.reject(
        new McpError(typeof code === 'number' ? code : 0, String(text ?? 'unknown error'), data),
      );
    } else if (message.result !== null && typeof message.result === 'object') {
      pending.resolve(message.result as Record<string, unknown>);
    } else {
      pending.reject(new McpError(ErrorCode.InvalidParams, 'an answer without a result object'));
    }
  }

  #onChannelClosed(): void {
    if (this.#closed) return;
    this.#closed = true;
    for (const id of [...this.#pending.keys()])
      this.#settle(id)?.reject(new McpError(ErrorCode.ConnectionClosed, 'Connection closed'));
    this.onclose?.();
  }
}

/** Tells the server a request is given up (its answer, if one comes, is ignored). */
function cancel(channel: McpChannel, id: number, reason: string): void {
  void channel
    .send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id, reason } })
    .catch(() => {});
}

/** How many redirects one POST follows: the MCP SDK's bound. */
const MAX_REDIRECTS = 5;

/** JSON-RPC over Streamable HTTP: each message one POST, its answer JSON or SSE. */
export class HttpChannel implements McpChannel {
  onmessage?: (message: RpcMessage) => void;
  onclose?: () => void;
  #sessionId: string | undefined;
  #protocolVersion: string | undefined;

  constructor(
    readonly url: URL,
    readonly headers: Readonly<Record<string, string>>,
    readonly fetch: FetchFunction,
  ) {}

  setProtocolVersion(version: string): void {
    this.#protocolVersion = version;
  }

  async send(message: object): Promise<void> {
    const headers: Record<string, string> = {
      ...this.headers,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    };
    if (this.#sessionId !== undefined) headers['mcp-session-id'] = this.#sessionId;
    if (this.#protocolVersion !== undefined) headers['mcp-protocol-version'] = this.#protocolVersion;
    const body = JSON.stringify(message);
    let url = this.url;
    let response = await this.fetch(url, { method: 'POST', headers, body });
    // A 307 or 308 within the server's origin is followed (POST kept), as the SDK's client follows them.
    for (let hops = 0; hops < MAX_REDIRECTS && (response.status === 307 || response.status === 308); hops++) {
      const location = response.headers.get('location');
      const target = location ? new URL(location, url) : undefined;
      if (!target || target.origin !== url.origin) break;
      await response.body?.cancel();
      url = target;
      response = await this.fetch(url, { method: 'POST', headers, body });
    }
    const sessionId = response.headers.get('mcp-session-id');
    if (sessionId) this.#sessionId = sessionId;
    if (!response.ok) {
      const text = await response.text().catch(() => '');
      throw new Error(`Streamable HTTP error: Error POSTing to endpoint: ${text}`);
    }
    if (response.status === 202 || !('id' in message && 'method' in message)) {
      await response.body?.cancel();
      return;
    }
    const type = (response.headers.get('content-type') ?? '').split(';')[0]?.trim().toLowerCase();
    if (type === 'application/json') {
      const data = JSON.parse(await response.text()) as RpcMessage | RpcMessage[];
      for (const m of Array.isArray(data) ? data : [data]) this.onmessage?.(m);
    } else if (type === 'text/event-stream') {
      await this.#readEvents(response);
    } else {
      await response.body?.cancel();
      throw new Error(
        `Streamable HTTP error: Unexpected content type: ${response.headers.get('content-type')}`,
      );
    }
  }

  /**
   * Delivers each SSE event's data as it arrives, until the stream ends. The parser is `eventsource-parser`, the
   * gateway's, imported with the first SSE answer (the SDK's listener answers JSON, so most simulators never do).
   */
  async #readEvents(response: HttpFetchResponse): Promise<void> {
    if (!response.body) return;
    const { createParser } = await import('eventsource-parser');
    const parser = createParser({
      onEvent: (event) => this.onmessage?.(JSON.parse(event.data) as RpcMessage),
    });
    const decoder = new TextDecoder();
    for await (const chunk of response.body) parser.feed(decoder.decode(chunk, { stream: true }));
    parser.feed(`${decoder.decode()}\n\n`);
  }

  async close(): Promise<void> {
    this.onclose?.();
  }
}

/** A stdio server's spawn: the command, its argv, its whole environment and its directory. */
export interface StdioServerParameters {
  command: string;
  args: readonly string[];
  env: Record<string, string>;
  cwd?: string;
}

/** JSON-RPC over a child process's stdin and stdout, a message per line; stderr is the caller's to read. */
export class StdioChannel implements McpChannel {
  onmessage?: (message: RpcMessage) => void;
  onclose?: () => void;
  #child: ChildProcess | undefined;
  #exited: Promise<void> | undefined;

  constructor(readonly params: StdioServerParameters) {}

  /** The server's pid once spawned. */
  get pid(): number | undefined {
    return this.#child?.pid;
  }

  /** The server's stderr once spawned. */
  get stderr(): NodeJS.ReadableStream | undefined {
    return this.#child?.stderr ?? undefined;
  }

  /** Spawns the server; rejects if it cannot be spawned. */
  start(): Promise<void> {
    const child = spawn(this.params.command, [...this.params.args], {
      env: this.params.env,
      stdio: ['pipe', 'pipe', 'pipe'],
      ...(this.params.cwd !== undefined ? { cwd: this.params.cwd } : {}),
    });
    this.#child = child;
    this.#exited = new Promise((resolve) => child.once('close', () => resolve()));
    void this.#exited.then(() => this.onclose?.());
    const lines = new LineSplitter();
    child.stdout?.on('data', (chunk: Buffer) => {
      for (const text of lines.push(chunk)) {
        let message: unknown;
        try {
          message = JSON.parse(text);
        } catch {
          continue; // A server's non-JSON line (a log on stdout) is not a message.
        }
        if (message !== null && typeof message === 'object') this.onmessage?.(message as RpcMessage);
      }
    });
    // A write after the server died fails on the pipe; the close above reports it.
    child.stdin?.on('error', () => {});
    return new Promise((resolve, reject) => {
      child.once('spawn', () => resolve());
      // Kept for the child's life: a later error (a failed kill) must not find it without a listener.
      child.on('error', reject);
    });
  }

  send(message: object): Promise<void> {
    const stdin = this.#child?.stdin;
    if (!stdin || stdin.destroyed)
      return Promise.reject(new McpError(ErrorCode.ConnectionClosed, 'Not connected'));
    return new Promise((resolve, reject) =>
      stdin.write(`${JSON.stringify(message)}\n`, (error) => (error ? reject(error) : resolve())),
    );
  }

  /** Ends stdin, then SIGTERM, then SIGKILL, waiting up to 2 s for the exit after each. */
  async close(): Promise<void> {
    const child = this.#child;
    if (!child || !this.#exited) return;
    const exited = this.#exited;
    child.stdin?.end();
    await settlesWithin(exited, 2000);
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      await settlesWithin(exited, 2000);
    }
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
}
