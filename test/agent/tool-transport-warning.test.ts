// A tool step that failed because its MCP server was unreachable is a transport failure (warned about); a tool
// that returned an error, or any other step, is not. Messages as the simulator's MCP hub writes them. The
// warning reads only the backend-neutral call (`ToolCall.name`, `ToolCall.mcpServer`): agy's `call_mcp_tool`
// and its `ServerName`/`ToolName` arguments (docs/reference/mcp.md#calling-mcp-tools) are unwrapped by agy's
// normalize, the one place that knows them.
import { describe, expect, it } from 'vitest';
import { toolTransportWarning } from '../../src/agent/tool-transport-warning.js';
import { parseLine } from '../../src/connection/agy/stream-json/parse-line.js';
import { Agent } from '../../src/index.js';
import type { Step } from '../../src/model/step.js';
import { InMemoryConnection } from '../../src/testing/index.js';
import { spyLogger } from '../helpers/hooks.js';

/** A failed `call_mcp_tool` step as agy writes it, through agy's normalize. */
function agyToolStep(state: string, message?: string, args: Record<string, unknown> = MCP_ARGS): Step {
  const line = JSON.stringify({
    event: 'step_update',
    step_update: {
      conversation_id: 'c',
      step_index: 3,
      step_type: 'tool',
      state,
      tool_info: {
        name: 'call_mcp_tool',
        parameters: args,
        ...(message !== undefined && { error: { type: 'TOOL_ERROR', message } }),
      },
    },
  });
  const parsed = parseLine(line);
  if (!parsed.ok || parsed.event.type !== 'step') throw new Error(`not a step: ${line}`);
  return parsed.event.step;
}
const MCP_ARGS = { ServerName: 'agy-sdk_tools', ToolName: 'echo', Arguments: { text: 'hi' } };

describe('toolTransportWarning', () => {
  it.each([
    'MCP server "agy-sdk_tools" is not connected',
    'fetch failed (UND_ERR_SOCKET: other side closed)',
    'fetch failed',
    'connect ECONNREFUSED 127.0.0.1:4242',
  ])('warns for %j, naming the server, tool and step', (message) => {
    const step = agyToolStep('ERROR', message);
    // agy's normalize filled the backend-neutral fields the warning reads.
    expect(step.tool).toMatchObject({ name: 'echo', mcpServer: 'agy-sdk_tools', args: { text: 'hi' } });
    const warning = toolTransportWarning(step);
    expect(warning).toContain('echo on MCP server agy-sdk_tools (step 3)');
    expect(warning).toContain(message);
  });

  it('stays quiet for a tool error, a finished call and a non-tool step', () => {
    expect(toolTransportWarning(agyToolStep('ERROR', 'the file does not exist'))).toBeUndefined();
    expect(toolTransportWarning(agyToolStep('DONE'))).toBeUndefined();
    expect(
      toolTransportWarning({ ...agyToolStep('ERROR', 'fetch failed'), type: 'agent_response' }),
    ).toBeUndefined();
  });

  it('a built-in tool or a malformed MCP call names no server', () => {
    const builtIn: Step = {
      conversationId: 'c',
      stepIndex: 4,
      state: 'ERROR',
      type: 'tool',
      raw: {},
      tool: {
        id: 'c:4',
        name: 'read_url_content',
        args: { Url: 'http://x' },
        stepIndex: 4,
        state: 'ERROR',
        error: { type: 'TOOL_ERROR', message: 'fetch failed' },
      },
    };
    expect(toolTransportWarning(builtIn)).toBe(
      'tool call read_url_content (step 4) failed for a transport reason: fetch failed',
    );
    // No ToolName: agy's normalize leaves the call as sent and sets no mcpServer, so no server is claimed
    // from a wire argument the warning no longer reads.
    const malformed = agyToolStep('ERROR', 'fetch failed', { ServerName: 'x' });
    expect(malformed.tool?.mcpServer).toBeUndefined();
    expect(toolTransportWarning(malformed)).toBe(
      'tool call call_mcp_tool (step 3) failed for a transport reason: fetch failed',
    );
  });

  it('any backend that fills ToolCall.mcpServer gets the warning through the Agent (in-memory connection)', async () => {
    const logger = spyLogger();
    const conn = new InMemoryConnection({
      turns: [
        {
          steps: [
            {
              type: 'tool',
              state: 'ERROR',
              tool: {
                id: 'mem:0',
                name: 'lookup',
                mcpServer: 'inventory',
                args: {},
                stepIndex: 0,
                state: 'ERROR',
                error: { type: 'TOOL_ERROR', message: 'socket hang up' },
              },
            },
            { type: 'agent_response', textDelta: 'sorry' },
          ],
        },
      ],
    });
    await using agent = new Agent({ connection: conn.connect, logger });
    const response = await agent.chat('go');
    expect((await response.result()).status).toBe('success');
    const warnings = logger.warn.mock.calls.map((c) => String(c[0]));
    expect(warnings).toContainEqual(
      expect.stringContaining('tool call lookup on MCP server inventory (step 0)'),
    );
  });
});
