/**
 * A tool call the agent reports, as the host's hooks see it: one builder for the permission request and the
 * call's end, and `postToolCall` / `onToolError` for tools the agent ran itself (the SDK's own tools get theirs
 * in-process, from the listener).
 */

import type { Logger } from '../../logger.js';
import type { ToolCall } from '../../model/step.js';
import { createToolInvocation } from '../../model/tool-args.js';
import type { ToolInvocation } from '../../model/tool-call.js';
import type { ConnectionHost } from '../host.js';
import { OWN_TOOL_SERVER } from '../tool-server/server-name.js';

/** The hooks' view of a tool-call step. */
export function hookCallOf(call: ToolCall): ToolInvocation {
  return createToolInvocation({
    id: call.id,
    name: call.name,
    args: call.args,
    server: call.mcpServer,
    stepIndex: call.stepIndex,
  });
}

/**
 * Reports a finished call to the host (the caller reports each call once). A failing hook is logged, never
 * thrown into the protocol handler.
 */
export function reportToolEnded(host: ConnectionHost, logger: Logger, call: ToolCall): void {
  if (call.mcpServer === OWN_TOOL_SERVER || call.denied || !host.needs().toolResults) return;
  const outcome = call.error ? { error: call.error.message } : { output: call.output };
  host.toolCallEnded(hookCallOf(call), outcome).catch((err: unknown) => {
    logger.error('a postToolCall / onToolError hook failed', err);
  });
}
