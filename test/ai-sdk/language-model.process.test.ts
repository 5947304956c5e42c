// The AI SDK provider on the built package (dist/, what `import 'agy-sdk/ai-sdk'` loads), driven by the real
// `ai` package (streamText, generateText, generateObject, Output.object, abort) against the agy simulator.
// Every agy process carries an environment marker; each test checks none is left once its call ended.
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { generateObject, generateText, jsonSchema, Output, streamText } from 'ai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod/v4';
import type * as AiSdk from '../../src/ai-sdk/index.js';
import type * as Root from '../../src/index.js';
import type * as Testing from '../../src/testing/index.js';
import { envSurvivors } from '../helpers/env-marker.js';

const root = resolve(import.meta.dirname, '../..');
const built = existsSync(join(root, 'dist/ai-sdk/index.js'));
const load = <T>(path: string): Promise<T> =>
  import(pathToFileURL(join(root, 'dist', path)).href) as Promise<T>;

let ai: typeof AiSdk;
let sdk: typeof Root;
let testing: typeof Testing;
let scratch: string;
const marker = `ai-sdk-${randomUUID()}`;

beforeAll(async () => {
  ai = await load('ai-sdk/index.js');
  sdk = await load('index.js');
  testing = await load('testing/index.js');
  scratch = mkdtempSync(join(tmpdir(), 'agy-sdk-ai-sdk-'));
});
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** A model on the simulator with `scenario` (none: the default echo script), every policy allowing. */
async function model(
  scenario?: Testing.Scenario,
  settings: AiSdk.AgySettings = {},
): Promise<AiSdk.AgyLanguageModel> {
  const file = scenario ? await testing.writeScenario(scenario, scratch) : undefined;
  return ai.agy('default', {
    agyPath: testing.simulatorPath(),
    workspaces: [scratch],
    env: {
      AGY_SDK_TEST_RUN: marker,
      AGY_SIM_STATE_DIR: join(scratch, 'sim'),
      ...(file && { AGY_SIM_SCENARIO: file }),
    },
    policies: [sdk.policy.allowAll()],
    ...settings,
  });
}

async function noSurvivors(): Promise<void> {
  expect(await envSurvivors('AGY_SDK_TEST_RUN', marker)).toEqual([]);
}

const TOOL_TURN: Testing.Scenario = {
  turns: [
    {
      actions: [
        { text: 'Let me look.', chunks: 3 },
        { tool: { name: 'run_command', parameters: { CommandLine: 'ls' }, output: 'README.md' } },
        { text: 'One file: README.md.', chunks: 2 },
      ],
    },
  ],
};

describe.skipIf(!built)('agy-sdk/ai-sdk with the real `ai` package', () => {
  it('streamText: text deltas as agy writes them, agy tool calls as provider-executed calls and results, stop with usage and the conversation id', async () => {
    const m = await model(TOOL_TURN);
    const result = streamText({ model: m, prompt: 'What is here?' });
    const parts: { type: string; [k: string]: unknown }[] = [];
    for await (const part of result.fullStream) parts.push(part);
    const deltas = parts.filter((p) => p.type === 'text-delta').map((p) => p.text);
    expect(deltas.length).toBeGreaterThanOrEqual(5);
    expect(deltas.join('')).toBe('Let me look.One file: README.md.');
    const types = parts.map((p) => p.type).filter((t) => t.startsWith('tool') || t === 'text-start');
    expect(types).toEqual(['text-start', 'tool-call', 'tool-result', 'text-start']);
    expect(parts.find((p) => p.type === 'tool-call')).toMatchObject({
      toolName: 'run_command',
      input: { CommandLine: 'ls' },
      providerExecuted: true,
      dynamic: true,
    });
    expect(parts.find((p) => p.type === 'tool-result')).toMatchObject({
      output: 'README.md',
      providerExecuted: true,
    });
    expect(await result.finishReason).toBe('stop');
    const usage = await result.usage;
    expect(usage.inputTokens).toBeGreaterThan(0);
    expect(usage.outputTokens).toBeGreaterThan(0);
    const meta = (await result.providerMetadata)?.agy;
    expect(meta).toMatchObject({ status: 'success' });
    expect(typeof meta?.conversationId).toBe('string');
    await noSurvivors();
  });

  it('unsupported call settings and tools declared only as JSON Schema come back as warnings', async () => {
    const m = await model();
    const result = await generateText({
      model: m,
      prompt: 'hi',
      temperature: 0.3,
      topP: 0.9,
      stopSequences: ['END'],
      tools: { lookup: { inputSchema: jsonSchema({ type: 'object', properties: {} }) } },
      toolChoice: 'required',
    });
    const features = result.warnings?.map((w) => ('feature' in w ? w.feature : w.type));
    expect(features).toEqual(
      expect.arrayContaining(['temperature', 'topP', 'stopSequences', 'tool lookup', 'toolChoice']),
    );
    await noSurvivors();
  });

  it("continues agy's conversation with response.messages (only the new message is sent); an edited history is replayed into a new one, with a warning", async () => {
    const prompts: string[] = [];
    const m = await model(
      { turns: [{ actions: [{ text: 'First answer.' }] }] },
      { hooks: [sdk.hooks.preTurn((prompt) => prompts.push(prompt) > 0)] },
    );
    const first = await generateText({ model: m, prompt: 'first' });
    const id = first.providerMetadata?.agy?.conversationId;
    const history = [{ role: 'user' as const, content: 'first' }, ...first.response.messages];
    const second = await generateText({
      model: m,
      messages: [...history, { role: 'user', content: 'second' }],
    });
    expect(second.providerMetadata?.agy).toMatchObject({ conversationId: id, resumed: true });
    expect(prompts[1]).toBe('second');
    expect(second.warnings).toEqual([]);
    const edited = [
      { role: 'user' as const, content: 'first' },
      {
        role: 'assistant' as const,
        content: [
          {
            type: 'text' as const,
            text: 'Another answer.',
            providerOptions: { agy: { conversationId: String(id) } },
          },
        ],
      },
    ];
    const third = await generateText({ model: m, messages: [...edited, { role: 'user', content: 'third' }] });
    expect(third.providerMetadata?.agy?.conversationId).not.toBe(id);
    expect(prompts[2]).toContain('assistant: Another answer.');
    expect(prompts[2]).toMatch(/third$/);
    expect(JSON.stringify(third.warnings)).toContain(`the history differs from agy's conversation ${id}`);
    await noSurvivors();
  });

  it('generateObject with a zod schema and Output.object with a JSON Schema: the structured output, validated', async () => {
    const structured = (output: unknown): Promise<AiSdk.AgyLanguageModel> =>
      model({ turns: [{ actions: [{ text: 'Counting.' }], end: { structuredOutput: output } }] });
    const object = await generateObject({
      model: await structured({ files: 3, name: 'demo' }),
      prompt: 'count',
      schema: z.object({ files: z.number(), name: z.string() }),
    });
    expect(object.object).toEqual({ files: 3, name: 'demo' });
    const text = await generateText({
      model: await structured({ files: 4 }),
      prompt: 'count again',
      output: Output.object({
        schema: jsonSchema<{ files: number }>({
          type: 'object',
          properties: { files: { type: 'number' } },
          required: ['files'],
        }),
      }),
    });
    expect(text.output).toMatchObject({ files: 4 });
    await noSurvivors();
  });

  it('abortSignal interrupts the turn and leaves no agy process; close() ends a streaming call (finish "interrupted")', async () => {
    const m = await model({ turns: [{ actions: [{ text: 'Working…' }, { stall: true }] }] });
    const abort = new AbortController();
    const result = streamText({ model: m, prompt: 'go', abortSignal: abort.signal });
    const seen: string[] = [];
    for await (const part of result.fullStream) {
      seen.push(part.type);
      if (part.type === 'text-delta') abort.abort();
    }
    expect(seen).toContain('abort');
    await m.close();
    await noSurvivors();
    // close() while a call streams ends it and its agy process.
    const running = streamText({ model: m, prompt: 'go again', onError: () => undefined });
    const after: string[] = [];
    let closing: Promise<void> | undefined;
    for await (const part of running.fullStream) {
      if (closing) after.push(part.type);
      if (part.type === 'text-delta') closing ??= m.close();
    }
    await closing;
    expect(after.at(-1)).toBe('finish');
    expect(await running.finishReason).toBe('interrupted');
    await noSurvivors();
  });

  it('failed statuses are never a clean stop: a crash throws TurnError from generateText with agy\'s text; streamText gets an error part and finish "error"', async () => {
    const crash: Testing.Scenario = {
      turns: [{ actions: [{ text: 'Half' }, { stderr: 'panic: boom' }, { killSelf: 'SIGKILL' }] }],
    };
    const error = await generateText({ model: await model(crash), prompt: 'x' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(sdk.TurnError);
    expect((error as Root.TurnError).result.status).toBe('error');
    expect((error as Root.TurnError).result.stderrTail).toContain('panic: boom');
    const parts: string[] = [];
    const result = streamText({ model: await model(crash), prompt: 'x', onError: () => undefined });
    for await (const part of result.fullStream) parts.push(part.type);
    expect(parts).toContain('error');
    expect(await result.finishReason).toBe('error');
    await noSurvivors();
  });

  it('a stall ends timeout (an error), a denial ends "other", a token budget ends "length"', async () => {
    const stalled = await model({ turns: [{ actions: [{ stall: true }] }] }, { idleTimeoutMs: 1_500 });
    const timeout = await generateText({ model: stalled, prompt: 'x' }).catch(
      (e: Root.TurnError) => e.result.status,
    );
    expect(timeout).toBe('timeout');
    const denied = await generateText({
      model: await model(TOOL_TURN, { policies: [sdk.policy.deny('run_command')] }),
      prompt: 'x',
    });
    expect([denied.finishReason, denied.rawFinishReason]).toEqual(['other', 'denied']);
    const long = await generateText({
      model: await model({
        turns: [{ actions: [{ text: 'a', usage: { outputTokens: 500 } }, { text: 'b' }] }],
      }),
      prompt: 'x',
      maxOutputTokens: 10,
    });
    expect([long.finishReason, long.rawFinishReason]).toEqual(['length', 'budget_exceeded']);
    await noSurvivors();
  });

  it('settings are validated as an AgentConfig is, when the model is made', () => {
    expect(() => ai.agy('default', { temperature: 1 } as never)).toThrow(sdk.ConfigError);
    expect(() => ai.createAgy({ workspaces: ['relative'] })('m')).toThrow(/workspaces/);
  });

  it("the agent's own tool() runs in-process and images become attachments", async () => {
    let ran = 0;
    const count = sdk.tool({ name: 'count_files', description: 'Counts files', input: z.object({}) }, () => {
      ran += 1;
      return '42 files';
    });
    const m = await model(undefined, { tools: [count] });
    const result = await generateText({ model: m, prompt: 'count' });
    expect(ran).toBe(1);
    expect(result.content.find((p) => p.type === 'tool-result')).toMatchObject({ toolName: 'count_files' });
    const png = Buffer.from(
      'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGNgYGD4DwABBAEAwS2OUAAAAABJRU5ErkJggg==',
      'base64',
    );
    const seen = await generateText({
      model: await model(undefined, { hooks: [] }),
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'look' },
            { type: 'file', data: png, mediaType: 'image/png' },
          ],
        },
      ],
    });
    expect(seen.content.some((p) => p.type === 'tool-call' && p.toolName === 'view_file')).toBe(true);
    await noSurvivors();
  });
});
