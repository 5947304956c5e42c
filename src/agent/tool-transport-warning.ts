/**
 * Recognizes a tool step that failed because an MCP server could not be reached, not because the tool itself
 * failed. agy still ends such a turn `SUCCESS` (the model just sees a tool error), so without a warning a host
 * whose own tools were unreachable (e.g. during a start storm) would see nothing wrong.
 */
import type { Step } from '../model/step.js';

/**
 * Phrases of a transport failure: the server unreachable or the connection lost (the MCP client's own wording,
 * Node/undici socket errors), as opposed to an error the tool returned.
 */
const TRANSPORT_FAILURE =
  /is not connected|failed to connect|fetch failed|other side closed|socket hang up|ECONNREFUSED|ECONNRESET|EPIPE|ETIMEDOUT|UND_ERR_/i;

/**
 * The warning for a tool step that failed for a transport reason, or undefined for any other step. Reads only
 * the backend-neutral call (`ToolCall.name`, `ToolCall.mcpServer`): unwrapping a backend's MCP call is the
 * backend's job (for agy, `connection/agy/stream-json/normalize.ts`).
 */
export function toolTransportWarning(step: Step): string | undefined {
  const call = step.tool;
  if (step.type !== 'tool' || step.state !== 'ERROR' || !call?.error) return undefined;
  if (!TRANSPORT_FAILURE.test(call.error.message)) return undefined;
  const server = call.mcpServer !== undefined ? ` on MCP server ${call.mcpServer}` : '';
  return `tool call ${call.name}${server} (step ${step.stepIndex}) failed for a transport reason: ${call.error.message}`;
}
