/**
 * One `tools/call`, end to end: find the tool, validate the arguments, ask the host's one gate, run the
 * handler, convert its result, tell the host the call ended and the observer. Every failure becomes an MCP
 * error result (`isError: true`) naming the tool and what was wrong, so the model can correct itself and the
 * session goes on.
 */

import { isThenable } from '../../internal/guards.js';
import { describeError, type Logger } from '../../logger.js';
import type { ToolDefinition } from '../../model/tool.js';
import { createToolInvocation } from '../../model/tool-args.js';
import type { ToolCallDecision, ToolCallOutcome, ToolInvocation } from '../../model/tool-call.js';
import {
  createToolContext,
  type StateStore,
  type ToolContext,
  type ToolContextHost,
} from '../../model/tool-context.js';
import { type CallToolResult, formatIssues, toCallToolResult, toolError } from '../../model/tool-result.js';
import type { ConnectionHost } from '../host.js';
import type { CatalogTool, ToolCatalog } from './mcp-tool-catalog.js';

/** A tool call as it arrives. */
export interface ToolCallInfo {
  /** The MCP server (listener path segment) the call came in on. */
  server: string;
  /** The tool name as the client sent it (normally the provider-safe name). */
  name: string;
  /** The tool's name as its author wrote it; `undefined` when no such tool exists. */
  originalName: string | undefined;
  /** The arguments exactly as sent, before validation. */
  args: unknown;
  /** The JSON-RPC request id, when known. */
  requestId: string | number | undefined;
}

/** Why a call failed before or while running. */
export type ToolCallErrorKind =
  | 'unknown_tool'
  | 'invalid_arguments'
  | 'denied'
  | 'handler_error'
  | 'invalid_output';

/** A failed call's reason, as reported to observers. */
export interface ToolCallError {
  /** What went wrong. */
  kind: ToolCallErrorKind;
  /** The message the model was shown. */
  message: string;
  /** The thrown value, for `handler_error` and for a policy gate that threw. */
  cause?: unknown;
}

/** A finished call, as reported to observers. */
export interface ToolCallRecord extends ToolCallInfo {
  /** The arguments the handler received (validated, possibly modified by the gate); absent if it never ran. */
  parsedArgs?: Record<string, unknown>;
  /** What the client was sent. A handler may itself return `isError: true` without `error` being set. */
  result: CallToolResult;
  /** Set when the SDK turned the call into an error result. */
  error?: ToolCallError;
  /** When the call arrived (epoch milliseconds). */
  startedAt: number;
  /** How long the call took, in milliseconds. */
  durationMs: number;
}

/** Sees every call on the listener. Errors thrown here are logged and never change the result. */
export interface ToolCallObserver {
  /** Called when a call arrives, before anything else. */
  onStart?(call: ToolCallInfo): void | Promise<void>;
  /** Called once the result is known, just before it is sent. */
  onEnd?(record: ToolCallRecord): void | Promise<void>;
}

/**
 * What the own-tool server asks of the host for each call: the one gate (`gateToolCall`, asked with
 * `ownTool: 'running'`), the one end (`toolCallEnded`, told with `inProcess`), and what a tool's context reaches
 * (`toolContext`). The Agent's control plane is it; `ToolRunner`, which runs tools with no agent, gives only a
 * context (no gate: every call runs).
 */
export type OwnToolHost = Partial<Pick<ConnectionHost, 'gateToolCall' | 'toolCallEnded' | 'toolContext'>>;

/**
 * What the host adds to a call of the agent's own `tool()`s. Passed whole through the backend and the listener
 * to each call; a backend adds only its own `observer` (a sign of life for its watchdog).
 */
export interface OwnToolHooks {
  /** The host: its gate decides whether a validated call runs and with which arguments; it sees each end. */
  host?: OwnToolHost | undefined;
  /** Sees each call start and end (a watchdog's sign of life, a recorder); never changes the result. */
  observer?: ToolCallObserver | undefined;
}

/** What every call of one catalog shares: the host's hooks, the session's state, the logger. */
export interface ToolCallSession {
  /** The host and the observer. */
  hooks: OwnToolHooks;
  /** The session's state. */
  state: StateStore;
  /** Where failures are reported. */
  logger: Logger;
}

/** A tool context's host when the session gave none. */
const NO_CONTEXT: ToolContextHost = {};

/** A call as the listener hands it over. */
interface ToolCallRequest {
  name: string;
  args: unknown;
  requestId?: string | number;
}

/**
 * One call from its request to its end: the parsed arguments, the call as the host sees it (one object from the
 * gate to the end), and the record the host's end and the observer read.
 */
class CallInFlight {
  /** Only a record reads the clock; without the host's end or an `onEnd` observer nothing builds one. */
  readonly recorded: boolean;
  readonly #startedAt: number;
  readonly #started: number;
  readonly found: CatalogTool | undefined;
  readonly info: ToolCallInfo;
  /** The arguments as validated (and as the gate left them). */
  parsedArgs: Record<string, unknown> | undefined;
  #invocation: ToolInvocation | undefined;
  /** The host as the call found it (its gate, its context, its end). */
  readonly host: OwnToolHost | undefined;

  constructor(
    readonly catalog: ToolCatalog,
    readonly request: ToolCallRequest,
    readonly session: ToolCallSession,
  ) {
    const { hooks } = session;
    this.host = hooks.host;
    this.recorded = hooks.host?.toolCallEnded !== undefined || hooks.observer?.onEnd !== undefined;
    this.#startedAt = this.recorded ? Date.now() : 0;
    this.#started = this.recorded ? performance.now() : 0;
    this.found = catalog.find(request.name);
    this.info = {
      server: catalog.server,
      name: request.name,
      originalName: this.found?.definition.name,
      args: request.args,
      requestId: request.requestId,
    };
  }

  /** The call as the host sees it: built at the gate, or at the end when the call never reached it. */
  invocation(): ToolInvocation {
    this.#invocation ??= createToolInvocation({
      id: `${this.catalog.server}:${String(this.request.requestId ?? Date.now())}`,
      name: this.found?.definition.name ?? this.request.name,
      args: this.parsedArgs ?? {},
    });
    return this.#invocation;
  }

  /** Ends the call: the host's end may replace the result; the observer sees the record. */
  async finish(result: CallToolResult, error?: ToolCallError): Promise<CallToolResult> {
    if (!this.recorded) return result;
    const record: ToolCallRecord = {
      ...this.info,
      result,
      startedAt: this.#startedAt,
      durationMs: performance.now() - this.#started,
    };
    if (this.parsedArgs !== undefined) record.parsedArgs = this.parsedArgs;
    if (error) record.error = error;
    const host = this.host;
    if (host?.toolCallEnded) {
      try {
        const replaced = await host.toolCallEnded(this.invocation(), outcomeOf(record));
        if (replaced) record.result = replaced;
      } catch (err) {
        this.session.logger.warn('the host failed at the end of a tool call; keeping the original result', {
          tool: this.request.name,
          error: err,
        });
      }
    }
    notify(this.session, 'onEnd', record);
    return record.result;
  }

  /** Ends the call with an error result the model is sent. */
  fail(kind: ToolCallErrorKind, message: string, cause?: unknown): Promise<CallToolResult> {
    return this.finish(
      toolError(message),
      cause === undefined ? { kind, message } : { kind, message, cause },
    );
  }
}

/** Runs one call; never throws. */
export async function runToolCall(
  catalog: ToolCatalog,
  request: ToolCallRequest,
  session: ToolCallSession,
  /**
   * Aborted when the call should stop; handed to the handler as `ctx.signal`. A function is called when the
   * handler first reads `ctx.signal` (so a signal nobody reads is never created).
   */
  signal: AbortSignal | (() => AbortSignal),
): Promise<CallToolResult> {
  const call = new CallInFlight(catalog, request, session);
  const host = call.host;
  if (session.hooks.observer?.onStart) notify(session, 'onStart', call.info);

  const label = `tool "${request.name}"`;
  if (!call.found) return call.fail('unknown_tool', unknownTool(catalog, label));
  const { definition } = call.found;

  // A call without arguments means "no arguments"; the schema decides whether that is enough.
  const parsed = definition.input.safeParse(request.args ?? {});
  if (!parsed.success)
    return call.fail('invalid_arguments', `Invalid arguments for ${label}: ${formatIssues(parsed.error)}`);
  call.parsedArgs = parsed.data;

  if (host?.gateToolCall) {
    const gated = await askGate(
      host.gateToolCall,
      call.invocation(),
      parsed.data,
      definition,
      label,
      session,
    );
    if (!gated.ok) return call.fail(gated.kind, gated.message, gated.cause);
    call.parsedArgs = gated.args;
  }

  const ran = await runHandler(
    definition,
    call.parsedArgs,
    createToolContext(host?.toolContext ?? NO_CONTEXT, session.state, signal),
    label,
    session.logger,
  );
  if (!ran.ok) return call.fail(ran.kind, ran.message, ran.cause);
  // Without the host's end or an observer nobody reads the record: the result as it is (the hot path).
  return call.recorded ? call.finish(ran.result) : ran.result;
}

/** Why a call did not run or failed: the kind, the message the model is sent, and what was thrown. */
type Refusal = { ok: false; kind: ToolCallErrorKind; message: string; cause?: unknown };

/**
 * Asks the host's one gate about a validated call: the arguments to run it with (a rewrite is validated again
 * against the tool's input schema), or why it may not run. A gate that throws denies (fail closed).
 */
async function askGate(
  gate: NonNullable<OwnToolHost['gateToolCall']>,
  call: ToolInvocation,
  args: Record<string, unknown>,
  definition: ToolDefinition,
  label: string,
  session: ToolCallSession,
): Promise<{ ok: true; args: Record<string, unknown> } | Refusal> {
  let decision: ToolCallDecision;
  try {
    decision = await gate(call, { ownTool: 'running' });
  } catch (error) {
    session.logger.warn('tool policy gate threw; denying the call', { tool: call.name, error });
    const message = `${capitalize(label)} was denied: policy check failed: ${describeError(error)}`;
    return { ok: false, kind: 'denied', message, cause: error };
  }
  if (!decision.allow)
    return { ok: false, kind: 'denied', message: `${capitalize(label)} was denied: ${decision.reason}` };
  if (decision.args === undefined) return { ok: true, args };
  const modified = definition.input.safeParse(decision.args);
  if (modified.success) return { ok: true, args: modified.data };
  const message = `Invalid arguments for ${label} after policy rewrite: ${formatIssues(modified.error)}`;
  return { ok: false, kind: 'invalid_arguments', message };
}

/** Runs the handler and converts what it returns; a throw or an output off its schema is a refusal. */
async function runHandler(
  definition: ToolDefinition,
  args: Record<string, unknown>,
  ctx: ToolContext,
  label: string,
  logger: Logger,
): Promise<{ ok: true; result: CallToolResult } | Refusal> {
  let value: unknown;
  try {
    value = definition.handler(args, ctx);
    // A handler that answers at once costs no extra turn of the microtask queue.
    if (isThenable(value)) value = await value;
  } catch (error) {
    logger.debug('tool handler threw', { tool: definition.name, error });
    return {
      ok: false,
      kind: 'handler_error',
      message: `${capitalize(label)} failed: ${describeError(error)}`,
      cause: error,
    };
  }
  const converted = toCallToolResult(value, definition.output);
  if (!converted.ok)
    return { ok: false, kind: 'invalid_output', message: `${capitalize(label)} ${converted.message}` };
  return { ok: true, result: converted.result };
}

/** A finished call as the host's `toolCallEnded` takes it: the error the model saw, or the output. */
function outcomeOf(record: ToolCallRecord): ToolCallOutcome {
  const result = record.result;
  if (result.isError) {
    const error = result.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');
    return record.error?.kind === 'denied'
      ? { error, inProcess: true, denied: true }
      : { error, inProcess: true };
  }
  return { output: result.structuredContent ?? result.content, inProcess: true };
}

function notify<K extends keyof ToolCallObserver>(
  session: ToolCallSession,
  method: K,
  arg: Parameters<NonNullable<ToolCallObserver[K]>>[0],
): void {
  const observer = session.hooks.observer;
  const report = (error: unknown) => session.logger.warn(`tool call observer ${method} threw`, { error });
  try {
    const returned = (observer?.[method] as ((value: typeof arg) => void | Promise<void>) | undefined)?.call(
      observer,
      arg,
    );
    if (returned instanceof Promise) returned.catch(report);
  } catch (error) {
    report(error);
  }
}

/** The message for a call of a tool the catalog does not have, listing the ones it has. */
function unknownTool(catalog: ToolCatalog, label: string): string {
  const available = catalog.toolNames();
  const list = available.length > 0 ? `available tools: ${available.join(', ')}` : 'it has no tools';
  return `Unknown ${label} on MCP server "${catalog.server}"; ${list}.`;
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
