// A tool step that failed because its MCP server was unreachable is a transport failure (warned about); a tool
// that returned an error, or any other step, is not. Messages as the simulator's MCP hub writes them.
import { describe, expect, it } from 'vitest';
import { toolTransportWarning } from '../../src/agent/tool-transport-warning.js';
import type { Step } from '../../src/model/step.js';

function toolStep(state: Step['state'], message?: string): Step {
  return {
    conversationId: 'c',
    stepIndex: 3,
    state,
    type: 'tool',
    tool: {
      id: 'c:3',
      name: 'call_mcp_tool',
      args: { ServerName: 'agy-sdk_tools', ToolName: 'echo', Arguments: {} },
      stepIndex: 3,
      state,
      ...(message !== undefined && { error: { type: 'TOOL_ERROR', message } }),
    },
    raw: {} as Step['raw'],
  };
}

describe('toolTransportWarning', () => {
  it.each([
    'MCP server "agy-sdk_tools" is not connected',
    'fetch failed (UND_ERR_SOCKET: other side closed)',
    'fetch failed',
    'connect ECONNREFUSED 127.0.0.1:4242',
  ])('warns for %j, naming the server, tool and step', (message) => {
    const warning = toolTransportWarning(toolStep('ERROR', message));
    expect(warning).toContain('echo on MCP server agy-sdk_tools (step 3)');
    expect(warning).toContain(message);
  });

  it('stays quiet for a tool error, a finished call and a non-tool step', () => {
    expect(toolTransportWarning(toolStep('ERROR', 'the file does not exist'))).toBeUndefined();
    expect(toolTransportWarning(toolStep('DONE'))).toBeUndefined();
    expect(
      toolTransportWarning({ ...toolStep('ERROR', 'fetch failed'), type: 'agent_response' }),
    ).toBeUndefined();
  });
});
