/**
 * Re-issues what a replayed session recorded to this session's own listeners: a recorded hook call runs this
 * session's hook commands with the recorded payload; a recorded MCP request the replay's gate let through is
 * POSTed to this session's server of the same name.
 */
import type { HookRecord } from '../../cassette/format.js';
import type { Emitter } from '../simulator/emitter.js';
import { runHook } from '../simulator/hook-runner.js';
import type { SimRuntime } from '../simulator/runtime.js';
import type { McpDecision } from './replay-gate.js';

/** How long one replayed MCP POST may take before it is abandoned. */
const MCP_POST_TIMEOUT_MS = 30_000;

type HookEventName = Parameters<SimRuntime['hooksFor']>[0];

/** Runs this session's hook commands for the recorded event with the recorded payload. */
export async function reissueHook(
  runtime: SimRuntime,
  record: HookRecord,
  conversationId: string,
): Promise<void> {
  const request = (record.request ?? {}) as { toolCall?: { name?: unknown } };
  const tool = typeof request.toolCall?.name === 'string' ? request.toolCall.name : undefined;
  const event = record.event as HookEventName;
  const hooks = (() => {
    try {
      return runtime.hooksFor(event, tool);
    } catch {
      return [];
    }
  })();
  for (const hook of hooks ?? []) {
    await runHook(hook, request as object, { cwd: runtime.hookCwd, conversationId, exec: runtime.hookExec });
  }
}

/** POSTs a recorded MCP request the gate let through, or says on stderr why it did not. */
export async function reissueMcp(
  decision: McpDecision,
  server: string,
  request: unknown,
  emitter: Emitter,
): Promise<void> {
  if ('refused' in decision) {
    await emitter.stderr(
      `agy-sdk cassette: refused ${describeRequest(request)} to MCP server ${JSON.stringify(server)}: ${decision.refused}`,
    );
    return;
  }
  const { server: spec, body } = decision.send;
  try {
    const res = await fetch(spec.transport.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        ...spec.transport.headers,
      },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(MCP_POST_TIMEOUT_MS),
    });
    await res.text();
  } catch (err) {
    await emitter.stderr(`agy-sdk cassette: MCP call to ${server} failed: ${(err as Error).message}`);
  }
}

/** `tools/call delete_all`, `initialize`, `a batch`: what a refusal line names (bounded: the record is untrusted). */
function describeRequest(request: unknown): string {
  if (Array.isArray(request)) return 'a batch';
  const r = (typeof request === 'object' && request !== null ? request : {}) as {
    method?: unknown;
    params?: { name?: unknown };
  };
  const method = typeof r.method === 'string' ? r.method : 'a message';
  const tool = method === 'tools/call' && typeof r.params?.name === 'string' ? ` ${r.params.name}` : '';
  return JSON.stringify(`${method}${tool}`.slice(0, 200));
}
