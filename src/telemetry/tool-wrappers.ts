/**
 * Where tool calls are intercepted for their spans: the `ConnectionHost` (decisions on the backend's calls,
 * the in-process gate of the agent's own tools, the timed `onStop`) and the own tools' handlers, each run
 * inside its `execute_tool` span so that whatever the handler traces is its child.
 */
import type { ConnectionHost } from '../connection/host.js';
import type { BeforeToolCall } from '../connection/tool-server/mcp-tool-call.js';
import { describeError } from '../logger.js';
import type { ToolDefinition } from '../tools/tool.js';
import { isCallToolResult } from '../tools/tool-result.js';
import { ATTR } from './attributes.js';
import { timedHook } from './hook-spans.js';
import type { ToolSpans } from './tool-spans.js';
import { json, now, type ToolSpan, type TracingState } from './tracing-state.js';

/** The host, with its tool decisions timed and recorded on the calls' spans. */
export function wrapHost(s: TracingState, tools: ToolSpans, host: ConnectionHost): ConnectionHost {
  if (!s.tracer) return host;
  return {
    ...host,
    gateBackendToolCall: async (call, opts) => {
      const start = now();
      const verdict = await host.gateBackendToolCall(call, opts);
      // The agent's own tools get their span from the in-process gate (ownTools.gate) instead.
      if (opts?.gatedInProcess) return verdict;
      s.contain('gateBackendToolCall', () => tools.decided(call, verdict, start));
      return verdict;
    },
    toolCallAnswered: (key, call, verdict) => {
      host.toolCallAnswered(key, call, verdict);
      tools.answered(call, verdict);
    },
    ownTools: { ...host.ownTools, gate: timedGate(s, tools, host.ownTools.gate) },
    onStop: (event) => timedHook(s, 'stop', () => host.onStop(event)),
  };
}

/** The own-tool gate, its decision recorded on the call's span; no gate, no span (the handler opens one). */
function timedGate(
  s: TracingState,
  tools: ToolSpans,
  gate: BeforeToolCall | undefined,
): BeforeToolCall | undefined {
  if (!gate) return undefined;
  return async (call) => {
    const start = now();
    const decision = await gate(call);
    s.contain('ownTools.gate', () => tools.gated(call, decision, start));
    return decision;
  };
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
