/**
 * The agy hook adapter: agy's hook payloads (camelCase protojson) mapped to the SDK's typed hook data. Pure
 * functions, so the wire knowledge about hooks lives in the agy backend and the control plane sees only
 * `ToolInvocation`, `AgyHookInfo` and plain text.
 */

import { isRecord } from '../../internal/guards.js';
import { createToolInvocation } from '../../model/tool-args.js';
import type { AgyHookInfo, ToolInvocation } from '../../model/tool-call.js';
import type { AgyHookInput } from '../../protocol/hook-wire.js';
import { unwrapMcpCall } from './mcp-call.js';
import { PLUGIN_NAME } from './session/session-runtime.js';

/** The origin fields real agy sends with every hook call, for typed hooks. */
export function agyInfo(input: AgyHookInput): AgyHookInfo | undefined {
  const info: AgyHookInfo = {};
  if (typeof input.conversationId === 'string') info.conversationId = input.conversationId;
  if (typeof input.modelName === 'string') info.modelName = input.modelName;
  if (typeof input.transcriptPath === 'string') info.transcriptPath = input.transcriptPath;
  if (Array.isArray(input.workspacePaths) && input.workspacePaths.every((p) => typeof p === 'string'))
    info.workspacePaths = [...input.workspacePaths];
  if (typeof input.artifactDirectoryPath === 'string')
    info.artifactDirectoryPath = input.artifactDirectoryPath;
  return Object.keys(info).length > 0 ? info : undefined;
}

/** A hook error as text: agy 1.3.0 sends `""` for none; other versions an object with `message`. */
export function errorText(raw: unknown): string | undefined {
  if (raw === undefined || raw === null || raw === '') return undefined;
  if (typeof raw === 'string') return raw;
  if (isRecord(raw) && typeof raw.message === 'string') return raw.message;
  return JSON.stringify(raw);
}

/**
 * PostToolUse's output as the bare value, the shape of `ToolCall.output`: versions that send one wrap it as
 * `toolResult: {output}` (the simulator did too); 1.3.0 sends none.
 */
export function bareOutput(input: AgyHookInput): unknown {
  const result = input.toolResult;
  if (isRecord(result) && 'output' in result) return result.output;
  return result ?? input.output;
}

/** Maps agy's PreToolUse input to the SDK's tool call; MCP calls are unwrapped from `call_mcp_tool`. */
export function toHookCall(input: AgyHookInput): {
  call: ToolInvocation;
  mcp: { agyServer: string; args: Record<string, unknown> } | undefined;
} {
  const name = input.toolCall?.name ?? 'unknown';
  const args = isRecord(input.toolCall?.args) ? input.toolCall.args : {};
  const id = `${input.conversationId ?? ''}:${input.stepIdx ?? ''}`;
  // agy adds its own `toolAction`/`toolSummary` to every call's args (kept in `args` as sent).
  const origin = {
    ...(typeof args.toolAction === 'string' && { action: args.toolAction }),
    ...(typeof args.toolSummary === 'string' && { summary: args.toolSummary }),
    ...(agyInfo(input) && { agy: agyInfo(input) }),
  };
  const unwrapped = unwrapMcpCall(name, args);
  if (unwrapped) {
    const prefix = `${PLUGIN_NAME}_`;
    const { agyServer, toolName, args: inner } = unwrapped;
    const server = agyServer.startsWith(prefix) ? agyServer.slice(prefix.length) : agyServer;
    return {
      call: createToolInvocation({
        id,
        name: toolName,
        args: inner,
        server,
        stepIndex: input.stepIdx,
        ...origin,
      }),
      mcp: { agyServer, args },
    };
  }
  return {
    call: createToolInvocation({ id, name, args, stepIndex: input.stepIdx, ...origin }),
    mcp: undefined,
  };
}
