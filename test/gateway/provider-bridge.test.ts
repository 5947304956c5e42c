// Provider mode's bridge (issue 10): one in-process gateway pinned to the provider's model, agy pointed at it by
// env and settings, the upstream's own token counts per turn, nothing listening after close or a failed start.
import { GoogleGenAI } from '@google/genai';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/errors.js';
import {
  type ProviderBridge,
  startProviderBridge,
  validateProvider,
} from '../../src/gateway/provider-bridge.js';
import { OpenAiChatMock } from '../helpers/gateway/mocks/openai-chat.js';
import { probePort } from '../helpers/runtime-files.js';

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});

async function bridgeOnMock(): Promise<{ bridge: ProviderBridge; mock: OpenAiChatMock }> {
  const mock = await OpenAiChatMock.start();
  cleanups.push(() => mock.close());
  const bridge = await startProviderBridge({
    kind: 'openai-chat',
    baseUrl: mock.baseUrl,
    apiKey: mock.apiKey,
    model: 'upstream-model-7',
  });
  cleanups.push(() => bridge.close());
  return { bridge, mock };
}

/** Whether nothing listens at `url`'s port any more. */
const refused = async (url: string): Promise<boolean> =>
  (await probePort(Number(new URL(url).port))) === 'ECONNREFUSED';

describe('provider bridge', () => {
  it("points agy at the gateway with its token, pins the model, and counts the upstream's usage per turn", async () => {
    const { bridge, mock } = await bridgeOnMock();
    expect(bridge.settingsOverrides).toEqual({ modelProvider: 'gemini' });
    expect(bridge.env.GOOGLE_GEMINI_BASE_URL).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(bridge.env.GEMINI_API_KEY).not.toBe(mock.apiKey);
    const ai = new GoogleGenAI({
      apiKey: bridge.env.GEMINI_API_KEY,
      httpOptions: { baseUrl: bridge.env.GOOGLE_GEMINI_BASE_URL },
    });

    // A request outside a turn is not charged to one.
    mock.script({ parts: [{ text: 'before' }], usage: { input: 1, output: 1 } });
    await ai.models.generateContent({ model: 'gemini-2.5-flash', contents: 'hi' });

    bridge.beginTurn();
    mock.script({ parts: [{ text: 'one' }], usage: { input: 100, output: 20, cached: 40, reasoning: 5 } });
    mock.script({ parts: [{ text: 'two', chunks: 2 }], usage: { input: 10, output: 3 } });
    await ai.models.generateContent({ model: 'gemini-2.5-pro', contents: 'a' });
    let streamed = '';
    for await (const chunk of await ai.models.generateContentStream({
      model: 'gemini-3-flash',
      contents: 'b',
    }))
      streamed += chunk.text ?? '';
    expect(streamed).toBe('two');
    expect(bridge.endTurn()).toEqual({
      inputTokens: 60 + 10,
      outputTokens: 20 + 3,
      thinkingTokens: 5,
      cacheReadTokens: 40,
      totalTokens: 70 + 23,
      requests: 2,
      models: ['upstream-model-7'],
    });
    // Every request, whatever Gemini id it named, went to the pinned model with the upstream key.
    expect(mock.requests.map((r) => (r.body as { model: string }).model)).toEqual(
      Array(3).fill('upstream-model-7'),
    );
    for (const r of mock.requests) {
      expect(String(r.headers.authorization)).toBe(`Bearer ${mock.apiKey}`);
      expect(JSON.stringify(r.headers)).not.toContain(bridge.env.GEMINI_API_KEY);
    }

    bridge.beginTurn();
    expect(bridge.endTurn()).toBeNull();
  });

  it('after close() the gateway refuses connections; close is idempotent', async () => {
    const { bridge } = await bridgeOnMock();
    const url = bridge.env.GOOGLE_GEMINI_BASE_URL;
    expect(await refused(url)).toBe(false);
    await bridge.close();
    await bridge.close();
    expect(await refused(url)).toBe(true);
  });

  it.each([
    [null, 'provider'],
    [{ kind: 'openai-chat', baseUrl: 'http://127.0.0.1:1/v1', apiKey: 'k' }, 'provider.model'],
    [{ kind: 'openai-chat', baseUrl: 'http://127.0.0.1:1/v1', apiKey: '', model: 'm' }, 'provider.apiKey'],
  ])('refuses %j naming %s', (provider, field) => {
    expect(() => validateProvider(provider)).toThrow(ConfigError);
    try {
      validateProvider(provider);
    } catch (error) {
      expect((error as ConfigError).field).toBe(field);
    }
  });

  it('a start that fails (bad upstream kind or URL) throws a ConfigError', async () => {
    await expect(
      startProviderBridge({ kind: 'openai-chat', baseUrl: 'not a url', apiKey: 'k', model: 'm' }),
    ).rejects.toBeInstanceOf(ConfigError);
    await expect(
      // biome-ignore lint/suspicious/noExplicitAny: an invalid kind on purpose
      startProviderBridge({ kind: 'grpc' as any, baseUrl: 'http://127.0.0.1:1', apiKey: 'k', model: 'm' }),
    ).rejects.toBeInstanceOf(ConfigError);
  });
});
