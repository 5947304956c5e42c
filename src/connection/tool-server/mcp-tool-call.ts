/**
 * One `tools/call`, end to end: find the tool, validate the arguments, ask the policy gate, run the handler,
 * convert its result, tell the observer. Every failure becomes an MCP error result (`isError: true`) naming
 * the tool and what was wrong, so the model can correct itself and the session goes on.
 */

import type { ToolCallDecision } from '../../hooks/types.js';
import { isThenable } from '../../internal/guards.js';
import { describeError, type Logger } from '../../logger.js';
import { createToolContext, type StateStore, type ToolContextHost } from '../../tools/tool-context.js';
import { type CallToolResult, formatIssues, toCallToolResult, toolError } from '../../tools/tool-result.js';
import type { ToolCatalog } from './mcp-tool-catalog.js';

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
 * The gate's answer: the SDK's one tool-call decision (`preToolCall` hooks return the same shape). `message`
 * is shown to the model on a deny; `modifiedArgs` are validated again against the tool's input schema before
 * the handler runs.
 */
export type { ToolCallDecision };

/** A validated call, as the gate sees it. */
export interface GatedToolCall extends ToolCallInfo {
  /** The tool's name as its author wrote it. */
  originalName: string;
  /** The validated arguments. */
  parsedArgs: Record<string, unknown>;
}

/** The policy gate: runs after validation, before the handler. A gate that throws denies the call (fail closed). */
export type BeforeToolCall = (call: GatedToolCall) => ToolCallDecision | Promise<ToolCallDecision>;

/**
 * Runs after each call with its record and may replace the result sent back (e.g. an `onToolError` hook that
 * rewrites the error message). A hook that throws is logged; the original result stands.
 */
export type AfterToolCall = (
  record: ToolCallRecord,
) => Promise<CallToolResult | undefined> | CallToolResult | undefined;

/**
 * The own-tool hooks: everything the host adds to a call of the agent's own `tool()`s. One object, built once
 * where the host is (the Agent) and passed whole through the backend and the listener to each call; each hook
 * has this one name at every level.
 */
export interface OwnToolHooks {
  /** The policy gate: may this validated call run, and with which arguments? A gate that throws denies. */
  gate?: BeforeToolCall | undefined;
  /** Runs once the result is known; may replace the result sent back (`postToolCall`, `onToolError`). */
  after?: AfterToolCall | undefined;
  /** Sees each call start and end (a watchdog's sign of life, a recorder); never changes the result. */
  observer?: ToolCallObserver | undefined;
  /** What a tool's context may reach of the session: the conversation id and `send`. */
  context?: ToolContextHost | undefined;
}

/** What every call of one catalog shares: the host's hooks, the session's state, the logger. */
export interface ToolCallSession {
  /** The host's own-tool hooks. */
  hooks: OwnToolHooks;
  /** The session's state. */
  state: StateStore;
  /** Where failures are reported. */
  logger: Logger;
}

/** A tool context's host when the session gave none. */
const NO_CONTEXT: ToolContextHost = {};

/** Runs one call; never throws. */
export async function runToolCall(
  catalog: ToolCatalog,
  request: { name: string; args: unknown; requestId?: string | number },
  session: ToolCallSession,
  /**
   * Aborted when the call should stop; handed to the handler as `ctx.signal`. A function is called when the
   * handler first reads `ctx.signal` (so a signal nobody reads is never created).
   */
  signal: AbortSignal | (() => AbortSignal),
): Promise<CallToolResult> {
  const { hooks, logger } = session;
  // Only a record reads the clock; without an `after` hook or an `onEnd` observer nothing builds one.
  const recorded = hooks.after !== undefined || hooks.observer?.onEnd !== undefined;
  const startedAt = recorded ? Date.now() : 0;
  const started = recorded ? performance.now() : 0;
  const found = catalog.find(request.name);
  const info: ToolCallInfo = {
    server: catalog.server,
    name: request.name,
    originalName: found?.definition.name,
    args: request.args,
    requestId: request.requestId,
  };
  if (hooks.observer?.onStart) notify(session, 'onStart', info);

  let parsedArgs: Record<string, unknown> | undefined;
  const finish = async (result: CallToolResult, error?: ToolCallError): Promise<CallToolResult> => {
    if (!recorded) return result;
    const record: ToolCallRecord = { ...info, result, startedAt, durationMs: performance.now() - started };
    if (parsedArgs !== undefined) record.parsedArgs = parsedArgs;
    if (error) record.error = error;
    if (hooks.after) {
      try {
        const replaced = await hooks.after(record);
        if (replaced) record.result = replaced;
      } catch (err) {
        logger.warn('tool after hook threw; keeping the original result', {
          tool: request.name,
          error: err,
        });
      }
    }
    notify(session, 'onEnd', record);
    return record.result;
  };
  const fail = (kind: ToolCallErrorKind, message: string, cause?: unknown): Promise<CallToolResult> =>
    finish(toolError(message), cause === undefined ? { kind, message } : { kind, message, cause });

  if (!found) {
    const label = `tool "${request.name}"`;
    const available = catalog.toolNames();
    const list = available.length > 0 ? `available tools: ${available.join(', ')}` : 'it has no tools';
    return fail('unknown_tool', `Unknown ${label} on MCP server "${catalog.server}"; ${list}.`);
  }
  const { definition } = found;
  const label = `tool "${request.name}"`;

  // A call without arguments means "no arguments"; the schema decides whether that is enough.
  const parsed = definition.input.safeParse(request.args ?? {});
  if (!parsed.success)
    return fail('invalid_arguments', `Invalid arguments for ${label}: ${formatIssues(parsed.error)}`);
  parsedArgs = parsed.data;

  if (hooks.gate) {
    let decision: ToolCallDecision;
    try {
      decision = await hooks.gate({ ...info, originalName: definition.name, parsedArgs });
    } catch (error) {
      logger.warn('tool policy gate threw; denying the call', {
        server: catalog.server,
        tool: request.name,
        error,
      });
      return fail(
        'denied',
        `${capitalize(label)} was denied: policy check failed: ${describeError(error)}`,
        error,
      );
    }
    if (!decision.allow) {
      return fail(
        'denied',
        `${capitalize(label)} was denied: ${decision.message ?? 'not allowed by policy'}`,
      );
    }
    if (decision.modifiedArgs !== undefined) {
      const modified = definition.input.safeParse(decision.modifiedArgs);
      if (!modified.success) {
        return fail(
          'invalid_arguments',
          `Invalid arguments for ${label} after policy rewrite: ${formatIssues(modified.error)}`,
        );
      }
      parsedArgs = modified.data;
    }
  }

  let value: unknown;
  try {
    value = definition.handler(
      parsedArgs,
      createToolContext(hooks.context ?? NO_CONTEXT, session.state, signal),
    );
    // A handler that answers at once costs no extra turn of the microtask queue.
    if (isThenable(value)) value = await value;
  } catch (error) {
    logger.debug('tool handler threw', { server: catalog.server, tool: request.name, error });
    return fail('handler_error', `${capitalize(label)} failed: ${describeError(error)}`, error);
  }
  const converted = toCallToolResult(value, definition.output);
  if (!converted.ok) return fail('invalid_output', `${capitalize(label)} ${converted.message}`);
  // Without an observer or an `after` hook nobody reads the record: the result as it is (the hot path).
  return recorded ? finish(converted.result) : converted.result;
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

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
