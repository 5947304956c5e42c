/**
 * Parts split out of the ACP connection, checked on their own: tool-name resolution (Gemini CLI names MCP tools
 * `mcp_<server>_<tool>`, docs/reference/acp.md#tool-names), the hooks' view of a call, prompt blocks by
 * capability, the session's MCP server list, and the bounded wait.
 */
import { describe, expect, it } from 'vitest';
import { acpMcpServers } from '../../../src/connection/acp/mcp-servers.js';
import { promptBlocks } from '../../../src/connection/acp/prompt-blocks.js';
import { errorMessage } from '../../../src/connection/acp/rpc-errors.js';
import { hookCallOf } from '../../../src/connection/acp/tool-hooks.js';
import { toolResolver } from '../../../src/connection/acp/tool-names.js';
import { GEMINI_CLI_CAPABILITIES } from '../../../src/connection/index.js';
import { StartError } from '../../../src/index.js';
import { within } from '../../../src/internal/timing.js';
import type { ToolCall } from '../../../src/model/step.js';
import type { AcpInitializeResponse } from '../../../src/protocol/acp.js';

describe('toolResolver (docs/reference/acp.md#tool-names)', () => {
  it('splits mcp_<server>_<tool> on the longest known server name', () => {
    const resolve = toolResolver(undefined, ['db', 'db_admin']);
    expect(resolve('mcp_db_admin_drop', undefined)).toEqual({
      name: 'drop',
      server: 'db_admin',
      wireName: 'mcp_db_admin_drop',
    });
    expect(resolve('mcp_db_query', undefined)).toEqual({
      name: 'query',
      server: 'db',
      wireName: 'mcp_db_query',
    });
  });

  it('keeps built-ins and unknown servers as they are; falls back to the title, then "unknown"', () => {
    const resolve = toolResolver(undefined, ['db']);
    expect(resolve('read_file', undefined)).toEqual({ name: 'read_file', wireName: 'read_file' });
    expect(resolve('mcp_other_x', undefined)).toEqual({ name: 'mcp_other_x', wireName: 'mcp_other_x' });
    expect(resolve(undefined, 'Shell')).toEqual({ name: 'Shell', wireName: 'Shell' });
    expect(resolve(undefined, undefined)).toEqual({ name: 'unknown', wireName: 'unknown' });
  });
});

describe('hookCallOf', () => {
  it('carries id, name, args, server and step index; a non-object args becomes {}', () => {
    const call = {
      id: 'c1',
      name: 'query',
      args: { SQL: 'x' },
      mcpServer: 'db',
      stepIndex: 4,
    } as unknown as ToolCall;
    const hook = hookCallOf(call);
    expect(hook).toMatchObject({ id: 'c1', name: 'query', args: { SQL: 'x' }, server: 'db', stepIndex: 4 });
    expect(hookCallOf({ ...call, args: 'oops' as unknown as ToolCall['args'] }).args).toEqual({});
  });
});

describe('promptBlocks', () => {
  const image = {
    ref: '@img',
    kind: 'image',
    mimeType: 'image/png',
    data: new Uint8Array([1, 2]),
    file: '/w/a.png',
  };
  const request = { text: ['look', '@img'], media: [image] } as unknown as Parameters<typeof promptBlocks>[0];

  it('sends an image natively only where promptImages is advertised', () => {
    const native = promptBlocks(request, { ...GEMINI_CLI_CAPABILITIES, promptImages: true });
    expect(native[0]).toEqual({ type: 'text', text: 'look' });
    expect(native[1]).toEqual({ type: 'image', mimeType: 'image/png', data: 'AQI=', uri: 'file:///w/a.png' });
    const plain = promptBlocks(request, { ...GEMINI_CLI_CAPABILITIES, promptImages: false });
    expect(plain[1]).toEqual({ type: 'text', text: '@img' });
  });
});

describe('acpMcpServers', () => {
  const init = (http: boolean) =>
    ({ protocolVersion: 1, agentCapabilities: { mcpCapabilities: { http } } }) as AcpInitializeResponse;

  it('lists enabled stdio and HTTP servers with env and headers as name/value pairs', () => {
    const out = acpMcpServers(
      init(true),
      undefined,
      {
        fs: { command: 'node', args: ['s.js'], env: { A: '1' } },
        off: { command: 'x', disabled: true },
        web: { url: 'http://127.0.0.1:9/mcp', headers: { H: 'v' } },
      },
      '',
    );
    expect(out).toEqual([
      { name: 'fs', command: 'node', args: ['s.js'], env: [{ name: 'A', value: '1' }] },
      { type: 'http', name: 'web', url: 'http://127.0.0.1:9/mcp', headers: [{ name: 'H', value: 'v' }] },
    ]);
  });

  it('fails the start, naming the server, when the agent does not advertise HTTP MCP', () => {
    expect(() =>
      acpMcpServers(init(false), undefined, { web: { url: 'http://127.0.0.1:9/mcp' } }, ''),
    ).toThrow(StartError);
    expect(() =>
      acpMcpServers(init(false), undefined, { web: { url: 'http://127.0.0.1:9/mcp' } }, ''),
    ).toThrow(/mcpServers\.web/);
  });
});

describe('support', () => {
  it('within: the value when in time, undefined when not', async () => {
    expect(await within(Promise.resolve(7), 10_000)).toEqual({ value: 7 });
    expect(await within(new Promise<never>(() => {}), 1)).toBeUndefined();
  });

  it('errorMessage reads Errors, JSON-RPC error objects and anything else', () => {
    expect(errorMessage(new Error('boom'))).toBe('boom');
    expect(errorMessage({ code: -32603, message: 'Internal error' })).toBe('Internal error');
    expect(errorMessage(42)).toBe('42');
  });
});
