/**
 * Real clients through the gateway (`src/gateway/`, issue 10) to each mock upstream: the real Gemini CLI 0.61.0
 * doing a tool loop (the loop completes, ids round-trip, no retries in its stderr, usage non-zero), and
 * `@google/genai` — the current devDependency and the 1.30 line Gemini CLI bundles (alias `genai-1-30`) — for
 * stream, unary, countTokens and models. Expected CLI shapes: ../shared/fixtures/gemini-cli-0.61/
 * cli-stream-json-tools.txt (`tool_id` "{name}__{upstream id}") and cli-sig-requests.json (ids replayed).
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { GoogleGenAI as GenAiCurrent } from '@google/genai';
import { GoogleGenAI as GenAi130 } from 'genai-1-30';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createGateway, type Gateway } from '../../src/gateway/index.js';
import { collect, useSandboxAgents } from '../helpers/agents.js';
import { GEMINI_CLI_ENTRY, retryLines, runGeminiCli } from '../helpers/gateway/gemini-cli.js';
import { AnthropicMock } from '../helpers/gateway/mocks/anthropic.js';
import type { RecordedRequest, ScriptedTurn } from '../helpers/gateway/mocks/mock-server.js';
import { OpenAiChatMock } from '../helpers/gateway/mocks/openai-chat.js';
import { OpenAiResponsesMock } from '../helpers/gateway/mocks/openai-responses.js';
import { ensureSimulatorBuilt } from '../helpers/sim-process.js';

type UpstreamKind = 'openai-chat' | 'openai-responses' | 'anthropic';
const UPSTREAM_MODEL = 'upstream-model-x';
const sb = useSandboxAgents();

interface AnyMock {
  baseUrl: string;
  apiKey: string;
  requests: RecordedRequest[];
  script(turn: ScriptedTurn): unknown;
  close(): Promise<void>;
}

const KINDS: { kind: UpstreamKind; start: () => Promise<AnyMock>; idPrefix: string }[] = [
  { kind: 'openai-chat', start: () => OpenAiChatMock.start(), idPrefix: 'call_' },
  { kind: 'openai-responses', start: () => OpenAiResponsesMock.start(), idPrefix: 'call_' },
  { kind: 'anthropic', start: () => AnthropicMock.start(), idPrefix: 'toolu_' },
];

/** The tool result the upstream received in its second request, found by the upstream's own id field. */
function toolResultIds(kind: UpstreamKind, body: unknown): string[] {
  const b = body as Record<string, unknown>;
  if (kind === 'openai-chat') {
    return ((b.messages as { role: string; tool_call_id?: string }[]) ?? [])
      .filter((m) => m.role === 'tool')
      .map((m) => String(m.tool_call_id));
  }
  if (kind === 'openai-responses') {
    return ((b.input as { type?: string; call_id?: string }[]) ?? [])
      .filter((i) => i.type === 'function_call_output')
      .map((i) => String(i.call_id));
  }
  return ((b.messages as { content?: unknown }[]) ?? [])
    .flatMap((m) =>
      Array.isArray(m.content) ? (m.content as { type?: string; tool_use_id?: string }[]) : [],
    )
    .filter((c) => c.type === 'tool_result')
    .map((c) => String(c.tool_use_id));
}

function authOf(req: RecordedRequest): string {
  return String(req.headers.authorization ?? req.headers['x-api-key'] ?? '');
}

describe('through the gateway', () => {
  describe.each(KINDS)('$kind upstream', ({ kind, start, idPrefix }) => {
    let mock: AnyMock;
    let gw: Gateway;

    beforeAll(async () => {
      mock = await start();
      gw = await createGateway({
        upstream: { kind, baseUrl: mock.baseUrl, apiKey: mock.apiKey },
        modelMap: { '*': UPSTREAM_MODEL },
      });
    });
    afterAll(async () => {
      await gw?.close();
      await mock?.close();
    });

    it.skipIf(!existsSync(GEMINI_CLI_ENTRY))(
      'Gemini CLI completes a tool loop; ids round-trip; no retries; usage non-zero',
      async () => {
        const callId = `${idPrefix}e2e${kind.replace(/-/g, '')}`;
        const before = mock.requests.length;
        mock.script({
          parts: [
            { thinking: 'I should list it.' },
            { toolCall: { id: callId, name: 'list_directory', args: { dir_path: '.' } } },
          ],
          usage: { input: 50, output: 12 },
        });
        mock.script({
          parts: [{ text: 'Listed the directory.', chunks: 3 }],
          usage: { input: 80, output: 6 },
        });
        const run = await runGeminiCli({
          baseUrl: gw.url,
          apiKey: gw.token,
          prompt: 'list the files',
          model: 'gemini-2.5-flash',
        });
        expect(run.timedOut, run.stderr).toBe(false);
        expect(run.exitCode, run.stderr).toBe(0);
        expect(run.events.find((e) => e.type === 'tool_use')).toMatchObject({
          tool_name: 'list_directory',
          tool_id: `list_directory__${callId}`,
        });
        expect(run.events.find((e) => e.type === 'tool_result')).toMatchObject({
          tool_id: `list_directory__${callId}`,
          status: 'success',
        });
        const text = run.events
          .filter((e) => e.type === 'message' && e.role === 'assistant')
          .map((e) => e.content)
          .join('');
        expect(text).toContain('Listed the directory.');
        const result = run.events.find((e) => e.type === 'result') as {
          status: string;
          stats: { total_tokens: number };
        };
        expect(result.status).toBe('success');
        expect(result.stats.total_tokens).toBeGreaterThan(0);
        expect(retryLines(run.stderr)).toEqual([]);
        const calls = mock.requests.slice(before);
        // Every model request of the loop reached the upstream once, the tool result paired by the upstream id.
        expect(calls.length).toBeGreaterThanOrEqual(2);
        expect(toolResultIds(kind, calls.at(-1)?.body)).toEqual([callId]);
        for (const call of calls) {
          expect((call.body as { model: string }).model).toBe(UPSTREAM_MODEL);
          expect(authOf(call)).toContain(mock.apiKey);
          expect(JSON.stringify(call.headers)).not.toContain(gw.token);
        }
      },
    );

    it('Agent → simulator (endpoint mode) → gateway → mock upstream: a tool loop with streamed text', async () => {
      await ensureSimulatorBuilt();
      writeFileSync(join(sb.box.workspace, 'chain-marker.txt'), 'x');
      const callId = `${idPrefix}chain${kind.replace(/-/g, '')}`;
      const before = mock.requests.length;
      mock.script({
        parts: [{ toolCall: { id: callId, name: 'list_dir', args: { DirectoryPath: sb.box.workspace } } }],
      });
      mock.script({
        parts: [{ text: 'The workspace holds the marker.', chunks: 4 }],
        usage: { input: 30, output: 8 },
      });
      const agent = await sb.agentWith(undefined, {
        isolation: 'shadow-home',
        settingsOverrides: { modelProvider: 'gemini' },
        env: { GOOGLE_GEMINI_BASE_URL: gw.url, GEMINI_API_KEY: gw.token },
      });
      const response = await agent.chat('what is in the workspace?');
      const result = await response.result();
      expect(result.status, result.errorMessage).toBe('success');
      expect(result.text).toBe('The workspace holds the marker.');
      const tools = await collect(response.toolResults());
      expect(tools[0]?.name).toBe('list_dir');
      expect(String(tools[0]?.output)).toContain('chain-marker.txt');
      expect(result.usage?.inputTokens).toBeGreaterThan(0);
      expect(toolResultIds(kind, mock.requests.at(-1)?.body)).toEqual([callId]);
      expect(mock.requests.length - before).toBe(2);
      // The upstream key stays in the gateway: never in the agy process's environment.
      expect(readFileSync(`/proc/${agent.pid}/environ`, 'utf8')).not.toContain(mock.apiKey);
    });

    it.each([
      ['current', GenAiCurrent],
      ['1.30', GenAi130],
    ] as const)('@google/genai %s: stream, unary, countTokens, models', async (_label, GenAi) => {
      const ai = new GenAi({ apiKey: gw.token, httpOptions: { baseUrl: gw.url } });
      mock.script({ parts: [{ text: 'streamed answer', chunks: 3 }], usage: { input: 9, output: 3 } });
      let streamed = '';
      let last:
        | { usageMetadata?: { totalTokenCount?: number }; candidates?: { finishReason?: string }[] }
        | undefined;
      for await (const chunk of await ai.models.generateContentStream({
        model: 'gemini-2.5-flash',
        contents: 'hi',
      })) {
        streamed += chunk.text ?? '';
        last = chunk;
      }
      expect(streamed).toBe('streamed answer');
      expect(last?.candidates?.[0]?.finishReason).toBe('STOP');
      expect(last?.usageMetadata?.totalTokenCount).toBeGreaterThan(0);

      mock.script({ parts: [{ text: 'unary answer' }] });
      const unary = await ai.models.generateContent({ model: 'gemini-2.5-pro', contents: 'hi' });
      expect(unary.text).toBe('unary answer');
      expect(unary.usageMetadata?.totalTokenCount).toBeGreaterThan(0);

      const counted = await ai.models.countTokens({
        model: 'gemini-2.5-flash',
        contents: 'count these tokens please',
      });
      expect(counted.totalTokens).toBeGreaterThan(0);

      const listed: string[] = [];
      for await (const model of await ai.models.list()) listed.push(String(model.name));
      expect(listed.length).toBeGreaterThan(0);
      const one = await ai.models.get({ model: 'gemini-2.5-flash' });
      expect(one.name).toContain('gemini-2.5-flash');
    });
  });

  describe('errors through the gateway', () => {
    let mock: OpenAiChatMock;
    let gw: Gateway;
    beforeAll(async () => {
      mock = await OpenAiChatMock.start();
      gw = await createGateway({
        upstream: { kind: 'openai-chat', baseUrl: mock.baseUrl, apiKey: mock.apiKey },
      });
    });
    afterAll(async () => {
      await gw?.close();
      await mock?.close();
    });
    afterEach(() => expect(mock.server.pending).toBe(0));

    it.each([
      [400, 400, 'INVALID_ARGUMENT'],
      [401, 401, 'UNAUTHENTICATED'],
      [404, 404, 'NOT_FOUND'],
      [429, 429, 'RESOURCE_EXHAUSTED'],
      [500, 500, 'INTERNAL'],
      [529, 503, 'UNAVAILABLE'],
    ])('upstream %i becomes Gemini %i %s', async (upstream, code, status) => {
      mock.fail(upstream, { retryAfter: 2 });
      const res = await fetch(`${gw.url}/v1beta/models/gemini-2.5-flash:generateContent`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-goog-api-key': gw.token },
        body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'hi' }] }] }),
      });
      expect(res.status).toBe(code);
      const body = (await res.json()) as { error: { code: number; status: string } };
      expect(body.error).toMatchObject({ code, status });
    });
  });
});
