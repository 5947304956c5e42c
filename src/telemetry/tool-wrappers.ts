/**
 * Where tool calls are intercepted for their spans: the `ConnectionHost`'s one gate (decisions on every call,
 * the agent's own tools' included), the timed `onStop`, and the own tools' handlers, each run inside its
 * `execute_tool` span so that whatever the handler traces is its child.
 */
import type { ConnectionHost } from '../connection/host.js';
import { describeError } from '../logger.js';
import type { ToolDefinition } from '../model/tool.js';
import { isCallToolResult } from '../model/tool-result.js';
import { ATTR } from './attributes.js';
import { timedHook } from './hook-spans.js';
import type { ToolSpans } from './tool-spans.js';
import { json, now, type ToolSpan, type TracingState } from './tracing-state.js';

/**
 * The host, with its tool decisions timed and recorded on the calls' spans. Each member is delegated by name
 * (the host may be a class instance, whose methods a spread would lose).
 */
export function wrapHost(s: TracingState, tools: ToolSpans, host: ConnectionHost): ConnectionHost {
  if (!s.tracer) return host;
  const gateToolCall: ConnectionHost['gateToolCall'] = async (call, opts) => {
    const start = now();
    const decision = await host.gateToolCall(call, opts);
    // An own tool a backend asks about gets its span when the SDK runs it (`ownTool: 'running'`).
    if (opts?.ownTool === 'asked') return decision;
    if (opts?.ownTool === 'running') s.contain('gateToolCall', () => tools.gated(call, decision, start));
    else s.contain('gateToolCall', () => tools.decided(call, decision, start));
    return decision;
  };
  const wrapped: ConnectionHost = {
    toolContext: host.toolContext,
    needs: () => host.needs(),
    toolCallRequested: (key, call) => host.toolCallRequested(key, call),
    gateToolCall,
    gateBackendToolCall: (call, opts) => gateToolCall(call, opts?.gatedInProcess ? { ownTool: 'asked' } : {}),
    toolCallAnswered: (key, call, decision) => {
      host.toolCallAnswered(key, call, decision);
      tools.answered(call, decision);
    },
    toolCallEnded: (call, outcome) => host.toolCallEnded(call, outcome),
    beforeModelCall: () => host.beforeModelCall(),
    onStop: (event) => timedHook(s, 'stop', () => host.onStop(event)),
  };
  if (host.watchSteering) wrapped.watchSteering = (watcher) => host.watchSteering!(watcher);
  return wrapped;
}

/**
 * The agent's own tools, each handler run inside its `execute_tool` span (opened by the gate, or here when
 * the backend has no gate), so whatever the handler traces is its child.
 */
export function wrapTools(
  s: TracingState,
  tools: ToolSpans,
  definitions: readonly ToolDefinition[],
): ToolDefinition[] {
  if (!s.tracer) return [...definitions];
  return definitions.map((definition) => {
    const handler = definition.handler;
    const wrapped: ToolDefinition['handler'] = (args, ctx) => {
      let state: ToolSpan;
      try {
        state = tools.forHandler(definition.name);
      } catch (error) {
        s.o.logger.warn(`telemetry: tool span failed: ${describeError(error)}`);
        return handler(args, ctx);
      }
      const finish = (value: unknown, thrown: unknown, failed: boolean): void => {
        const isError = failed || (isCallToolResult(value) && value.isError === true);
        if (s.o.captureContent && !failed) state.span.setAttribute(ATTR.toolResult, json(value));
        s.contain('tool span end', () =>
          tools.end(
            state,
            undefined,
            now(),
            isError ? (failed ? String(thrown) : 'tool returned an error') : undefined,
          ),
        );
      };
      return s.api.context.with(state.ctx, async () => {
        try {
          const value = await handler(args, ctx);
          finish(value, undefined, false);
          return value;
        } catch (error) {
          finish(undefined, error, true);
          throw error;
        }
      });
    };
    return Object.freeze({ ...definition, handler: wrapped });
  });
}
