/**
 * `@google/genai` (the current devDependency and the 1.30 line Gemini CLI bundles) against the fake Gemini
 * endpoint: proves the fake speaks the Gemini API closely enough for real SDKs (stream, unary, countTokens,
 * models), so the same calls in through-gateway.process.test.ts test the gateway, not the test code.
 */
import { GoogleGenAI as GenAiCurrent } from '@google/genai';
import { GoogleGenAI as GenAi130 } from 'genai-1-30';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeGemini, turns } from '../helpers/gateway/fake-gemini.js';

let fake: FakeGemini;
beforeAll(async () => {
  fake = await FakeGemini.start({ apiKey: 'genai-key' });
});
afterAll(async () => {
  await fake?.close();
});

describe.each([
  ['current', GenAiCurrent, 'v1beta'],
  ['1.30', GenAi130, 'v1beta'],
] as const)('@google/genai %s against the fake endpoint', (_label, GenAi, version) => {
  it('streams, answers unary, counts tokens and lists models; default API version as documented', async () => {
    const ai = new GenAi({ apiKey: 'genai-key', httpOptions: { baseUrl: fake.url } });
    const before = fake.requests.length;
    fake.enqueue(turns.text('one ', 'two'));
    let text = '';
    for await (const chunk of await ai.models.generateContentStream({
      model: 'gemini-2.5-flash',
      contents: 'hi',
    })) {
      text += chunk.text ?? '';
    }
    expect(text).toBe('one two');
    fake.enqueue(turns.text('unary'));
    expect((await ai.models.generateContent({ model: 'gemini-2.5-flash', contents: 'hi' })).text).toBe(
      'unary',
    );
    expect(
      (await ai.models.countTokens({ model: 'gemini-2.5-flash', contents: 'some words' })).totalTokens,
    ).toBeGreaterThan(0);
    const names: string[] = [];
    for await (const model of await ai.models.list()) names.push(String(model.name));
    expect(names).toContain('models/gemini-2.5-flash');
    expect((await ai.models.get({ model: 'gemini-2.5-flash' })).name).toBe('models/gemini-2.5-flash');
    // docs/reference/gemini-clients.md#api-version-defaults: 3.x defaults to v1; the installed 2.32.0 and
    // 1.30 (inside Gemini CLI) to v1beta.
    const paths = fake.requests.slice(before).map((r) => r.path);
    expect(paths.every((p) => p.startsWith(`/${version}/`))).toBe(true);
    expect(fake.requests.slice(before).every((r) => r.headers['x-goog-api-key'] === 'genai-key')).toBe(true);
  });
});
