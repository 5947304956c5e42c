/**
 * Endpoint mode of the simulator: with `modelProvider: "gemini"` in agy's settings and `GOOGLE_GEMINI_BASE_URL`
 * set, its model turns come from that endpoint (issue 10;
 * docs/reference/gemini-api.md#agy-as-a-gemini-client). The chain Agent → simulator → fake Gemini endpoint
 * (test/helpers/gateway/fake-gemini.ts) runs a tool loop and streams text; an HTTP error becomes agy's
 * failed-call shapes: DONE `error_message` steps and a `result` ERROR (the `AGY_ERROR` stderr form is
 * agy-real/joiomi-playbook-plugin-agy-1.2.17/quota-exhausted.stderr's).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { AgentConfig } from '../../../src/agent/config.js';
import { policy } from '../../../src/policy/index.js';
import { modelEndpointConfig } from '../../../src/testing/simulator/model-endpoint-config.js';
import { tool } from '../../../src/tools/tool.js';
import { collect, useSandboxAgents } from '../../helpers/agents.js';
import {
  FakeGemini,
  type FakeGeminiRequest,
  functionResponses,
  turns,
} from '../../helpers/gateway/fake-gemini.js';
import { ensureSimulatorBuilt } from '../../helpers/sim-process.js';

const sb = useSandboxAgents();
let fake: FakeGemini;

beforeAll(async () => {
  await ensureSimulatorBuilt();
  fake = await FakeGemini.start({ apiKey: 'sim-endpoint-key' });
}, 120_000);
afterAll(async () => {
  await fake?.close();
});

/** Provider-style settings: shadow HOME with `modelProvider: "gemini"`, the endpoint in the environment. */
function endpointConfig(extra: AgentConfig = {}): AgentConfig {
  return {
    isolation: 'shadow-home',
    settingsOverrides: { modelProvider: 'gemini' },
    env: { GOOGLE_GEMINI_BASE_URL: fake.url, GEMINI_API_KEY: 'sim-endpoint-key' },
    ...extra,
  };
}

function streamCalls(since: number): FakeGeminiRequest[] {
  return fake.requests.slice(since).filter((r) => r.action === 'streamGenerateContent');
}

describe('simulator endpoint mode', () => {
  it('runs a tool loop against the endpoint and streams its text as it arrives', async () => {
    writeFileSync(join(sb.box.workspace, 'endpoint-marker.txt'), 'x');
    const before = fake.requests.length;
    let release: () => void = () => {};
    const gate = new Promise<void>((ok) => {
      release = ok;
    });
    fake.enqueue(
      {
        ...turns.calls(
          [{ id: 'call_sim_1', name: 'list_dir', args: { DirectoryPath: sb.box.workspace } }],
          'Listing.',
        ),
        usage: { promptTokenCount: 40, candidatesTokenCount: 6, thoughtsTokenCount: 3 },
      },
      (req) => {
        const output = String(
          (functionResponses(req.body)[0]?.response as { output?: string } | undefined)?.output,
        );
        return {
          chunks: [
            [{ text: 'I found ' }],
            [{ text: output.includes('endpoint-marker.txt') ? 'the marker' : 'nothing' }],
            [{ text: '.' }],
          ],
          usage: { promptTokenCount: 60, candidatesTokenCount: 5 },
          gate,
        };
      },
    );
    const agent = await sb.agentWith(undefined, endpointConfig());
    const response = await agent.chat('what is in my workspace?');
    // The first deltas reach the SDK while the endpoint still holds the last chunk back.
    const deltas: string[] = [];
    for await (const delta of response) {
      deltas.push(delta);
      if (deltas.join('') === 'I found ') break;
    }
    expect(deltas.join('')).toBe('I found ');
    expect(response.done).toBe(false);
    release();
    const result = await response.result();
    expect(result.status, result.errorMessage).toBe('success');
    expect(result.text).toBe('I found the marker.');
    const tools = await collect(response.toolResults());
    expect(tools).toHaveLength(1);
    expect(tools[0]).toMatchObject({ name: 'list_dir', args: { DirectoryPath: sb.box.workspace } });
    expect(String(tools[0]?.output)).toContain('endpoint-marker.txt');
    // Usage is the endpoint's: 40 + 60 in, (6 + 3) + 5 out, thinking 3.
    expect(result.usage).toMatchObject({ inputTokens: 100, outputTokens: 14, thinkingTokens: 3 });

    const calls = streamCalls(before);
    expect(calls).toHaveLength(2);
    for (const call of calls) {
      expect(call.path).toBe('/v1beta/models/gemini-3.7-flash:streamGenerateContent');
      expect(call.query.get('alt')).toBe('sse');
      expect(call.headers['x-goog-api-key']).toBe('sim-endpoint-key');
      const declared = (
        (call.body?.tools as { functionDeclarations: { name: string }[] }[] | undefined)?.[0]
          ?.functionDeclarations ?? []
      ).map((d) => d.name);
      expect(declared).toEqual(expect.arrayContaining(['list_dir', 'view_file']));
    }
    const second = calls[1]?.body as { contents: { role: string; parts: Record<string, unknown>[] }[] };
    expect(second.contents.map((c) => c.role)).toEqual(['user', 'model', 'user']);
    expect(second.contents[0]?.parts).toEqual([{ text: 'what is in my workspace?' }]);
    // The model turn replays the call with its id and signature, without the thought part.
    expect(second.contents[1]?.parts).toEqual([
      {
        functionCall: { id: 'call_sim_1', name: 'list_dir', args: { DirectoryPath: sb.box.workspace } },
        thoughtSignature: 'SIG-call_sim_1',
      },
    ]);
    expect(functionResponses(second)[0]).toMatchObject({ id: 'call_sim_1', name: 'list_dir' });

    // The next turn carries the whole history, the last answer included.
    fake.enqueue(turns.text('Again.'));
    const again = await (await agent.chat('and now?')).result();
    expect(again.text).toBe('Again.');
    const third = streamCalls(before)[2]?.body as {
      contents: { role: string; parts: { text?: string }[] }[];
    };
    expect(third.contents.map((c) => c.role)).toEqual(['user', 'model', 'user', 'model', 'user']);
    expect(third.contents[3]?.parts[0]?.text).toBe('I found the marker.');
  });

  it("declares the loaded MCP tools through call_mcp_tool and runs the model's call (an SDK tool here)", async () => {
    const seen: string[] = [];
    const lookup = tool(
      { name: 'lookup_order', description: 'finds an order', input: z.object({ id: z.string() }) },
      ({ id }) => {
        seen.push(id);
        return `order ${id}: shipped`;
      },
    );
    const before = fake.requests.length;
    fake.enqueue(
      (req) => {
        const declared =
          (
            req.body?.tools as { functionDeclarations: { name: string; description: string }[] }[] | undefined
          )?.[0]?.functionDeclarations ?? [];
        const mcp = declared.find((d) => d.name === 'call_mcp_tool');
        // The declaration lists the server and its tool.
        if (!mcp?.description.includes('agy-sdk_tools: lookup_order'))
          return turns.text('no MCP tool declared');
        return turns.calls([
          {
            id: 'call_mcp_1',
            name: 'call_mcp_tool',
            args: { ServerName: 'agy-sdk_tools', ToolName: 'lookup_order', Arguments: { id: 'A7' } },
          },
        ]);
      },
      (req) =>
        turns.text(
          `Result: ${String((functionResponses(req.body)[0]?.response as { output?: string } | undefined)?.output)}`,
        ),
    );
    const agent = await sb.agentWith(
      undefined,
      endpointConfig({ tools: [lookup], policies: [policy.allowAll()] }),
    );
    const response = await agent.chat('where is order A7?');
    const result = await response.result();
    expect(result.status, result.errorMessage).toBe('success');
    expect(seen).toEqual(['A7']);
    expect(result.text).toContain('order A7: shipped');
    const calls = await collect(response.toolResults());
    expect(calls[0]).toMatchObject({ name: 'lookup_order', mcpServer: 'agy-sdk_tools', args: { id: 'A7' } });
    expect(functionResponses(streamCalls(before)[1]?.body)[0]).toMatchObject({
      id: 'call_mcp_1',
      name: 'call_mcp_tool',
    });
  });

  it('turns an HTTP 400 from the endpoint into an error_message step and a result ERROR, without retrying', async () => {
    const before = fake.requests.length;
    fake.enqueue(turns.error(400, 'INVALID_ARGUMENT', 'the fake refuses this request'));
    const stderr: string[] = [];
    const agent = await sb.agentWith(undefined, endpointConfig({ onStderr: (line) => stderr.push(line) }));
    const response = await agent.chat('hello');
    const result = await response.result();
    expect(result.status).toBe('error');
    expect(result.errorMessage).toContain('INVALID_ARGUMENT (code 400): the fake refuses this request');
    const steps = await collect(response.steps());
    expect(steps.filter((s) => s.type === 'error_message')).toHaveLength(1);
    expect(steps.some((s) => s.type === 'agent_response')).toBe(false);
    expect(stderr.some((line) => line.startsWith('AGY_ERROR: ') && line.includes('"error_code":400'))).toBe(
      true,
    );
    expect(streamCalls(before)).toHaveLength(1);
  });

  it('fails a stream that ends without finishReason after the retries, never taking it as complete', async () => {
    const before = fake.requests.length;
    const broken = { chunks: [[{ text: 'half an ans' }]], finishReason: null };
    fake.enqueue(broken, broken, broken);
    const agent = await sb.agentWith(undefined, endpointConfig());
    const response = await agent.chat('hello');
    const result = await response.result();
    expect(result.status).toBe('error');
    expect(result.errorMessage).toContain('model stream ended without a finish reason');
    const steps = await collect(response.steps());
    expect(steps.filter((s) => s.type === 'error_message')).toHaveLength(3);
    expect(streamCalls(before)).toHaveLength(3);
  });

  it('retries a 503 as agy does (an error_message step per failed attempt), then succeeds', async () => {
    const before = fake.requests.length;
    fake.enqueue(turns.error(503, 'UNAVAILABLE', 'try later'), turns.text('Recovered.'));
    const agent = await sb.agentWith(undefined, endpointConfig());
    const response = await agent.chat('hello');
    const result = await response.result();
    expect(result.status, result.errorMessage).toBe('success');
    expect(result.text).toBe('Recovered.');
    const steps = await collect(response.steps());
    expect(steps.filter((s) => s.type === 'error_message')).toHaveLength(1);
    expect(streamCalls(before)).toHaveLength(2);
  });

  it('stays off without modelProvider "gemini": the default script answers, the endpoint sees nothing', async () => {
    const before = fake.requests.length;
    const agent = await sb.agentWith(undefined, {
      env: { GOOGLE_GEMINI_BASE_URL: fake.url, GEMINI_API_KEY: 'k' },
    });
    const result = await (await agent.chat('plain')).result();
    expect(result.text).toContain('Hello from the agy simulator');
    expect(fake.requests.length).toBe(before);
  });

  it('reads modelProvider from the HOME settings and validates the base URL', () => {
    const home = mkdtempSync(join(tmpdir(), 'sim-endpoint-home-'));
    try {
      expect(modelEndpointConfig(home, { GOOGLE_GEMINI_BASE_URL: fake.url }, 'm')).toBeUndefined();
      mkdirSync(join(home, '.gemini', 'antigravity-cli'), { recursive: true });
      writeFileSync(join(home, '.gemini', 'antigravity-cli', 'settings.json'), '{"modelProvider":"gemini"}');
      expect(modelEndpointConfig(home, {}, 'm')).toBeUndefined();
      expect(
        modelEndpointConfig(home, { GOOGLE_GEMINI_BASE_URL: `${fake.url}/`, GEMINI_API_KEY: 'k' }, 'm'),
      ).toEqual({
        baseUrl: fake.url,
        apiKey: 'k',
        apiVersion: 'v1beta',
        model: 'm',
      });
      expect(() => modelEndpointConfig(home, { GOOGLE_GEMINI_BASE_URL: 'ftp://x' }, 'm')).toThrow(
        /must be http/,
      );
      expect(() => modelEndpointConfig(home, { GOOGLE_GEMINI_BASE_URL: 'not a url' }, 'm')).toThrow(
        /not a URL/,
      );
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });
});
