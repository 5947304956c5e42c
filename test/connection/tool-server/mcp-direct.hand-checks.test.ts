// The direct path's hand checks stand in for the SDK's zod schemas on the plain path: each must accept only
// what the schema accepts, and anything it refuses must still get the schema's answer.
import { CallToolResultSchema, JSONRPCRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { z } from 'zod/v4';
import { answerDirect, isPlainJsonRpcRequest } from '../../../src/connection/tool-server/mcp-direct.js';
import { ToolCatalog } from '../../../src/connection/tool-server/mcp-tool-catalog.js';
import type { ToolErrorReplacement } from '../../../src/model/tool-call.js';
import { tool } from '../../../src/tools/tool.js';
import { StateStore } from '../../../src/tools/tool-context.js';

const quiet = { debug() {}, info() {}, warn() {}, error() {} };

describe('isPlainJsonRpcRequest', () => {
  const plain = {
    jsonrpc: '2.0',
    id: 7,
    method: 'tools/call',
    params: { name: 'echo', arguments: { a: 1 } },
  };
  const samples: unknown[] = [
    plain,
    { jsonrpc: '2.0', id: 'x', method: 'ping' },
    { ...plain, id: 1.5 },
    { ...plain, id: null },
    { ...plain, jsonrpc: '1.0' },
    { ...plain, method: 3 },
    { ...plain, params: [] },
    { ...plain, params: { _meta: { progressToken: 1 } } },
    { ...plain, extra: true },
    JSON.parse('{"jsonrpc":"2.0","id":1,"method":"m","__proto__":{}}'),
    { jsonrpc: '2.0', method: 'notifications/initialized' },
    [plain],
    null,
  ];

  it("accepts agy's plain request", () => {
    expect(isPlainJsonRpcRequest(plain)).toBe(true);
    expect(isPlainJsonRpcRequest({ jsonrpc: '2.0', id: 'x', method: 'ping' })).toBe(true);
  });

  it('accepts nothing the SDK request schema refuses', () => {
    for (const sample of samples) {
      if (isPlainJsonRpcRequest(sample)) expect(JSONRPCRequestSchema.safeParse(sample).success).toBe(true);
    }
    expect(samples.filter((s) => !isPlainJsonRpcRequest(s)).length).toBe(samples.length - 2);
  });
});

describe('answerDirect tools/call results', () => {
  const options = (handler: () => unknown) => ({
    catalog: new ToolCatalog('tools', [
      tool({ name: 't', description: 'd', input: z.object({}) }, handler as () => string),
    ]),
    hooks: {},
    state: new StateStore(),
    logger: quiet,
  });
  const call = { method: 'tools/call', id: 1, params: { name: 't', arguments: {} } };

  it('sends a plain text result as the schema would', async () => {
    const reply = await answerDirect(
      call,
      options(() => 'hi'),
      () => new AbortController().signal,
    );
    expect(reply).toEqual({ jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: 'hi' }] } });
    expect(CallToolResultSchema.parse((reply as { result: unknown }).result)).toEqual(
      (reply as { result: unknown }).result,
    );
  });

  it('still checks any other result with the schema', async () => {
    // The host's replacement at the end of a call reaches the wire unconverted.
    const bad = { content: [{ type: 'text', text: 1 }] } as unknown as ToolErrorReplacement;
    const o = { ...options(() => 'hi'), hooks: { host: { toolCallEnded: async () => bad } } };
    const reply = await answerDirect(call, o, () => new AbortController().signal);
    expect(reply).toMatchObject({ id: 1, error: { code: -32602 } });
  });
});
