// Every recorded upstream stream in ../shared/fixtures/upstream/{openai-chat,openai-responses,anthropic}/ is
// served by a tiny in-test upstream on 127.0.0.1 and pulled through the real gateway as
// `:streamGenerateContent?alt=sse`. The expected Gemini output (text, whole function calls with upstream ids in
// upstream order, finish reason, usage) is computed from the fixture itself by an independent reading, and the
// output must frame strictly as `data: <JSON>\r\n\r\n`.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGateway, type Gateway } from '../../../src/gateway/index.js';
import type { UpstreamKind } from '../../../src/gateway/upstream/upstream.js';
import { silentLogger } from '../../../src/logger.js';
import {
  fixtureBodies,
  fixtureFiles,
  genai130Frames,
  haveUpstreamFixtures,
  post,
  SKIP_REASON,
  serveSse,
  startUpstream,
  strictFrames,
  summarize,
  type TestUpstream,
  upstreamEvents,
} from '../../helpers/gateway/helpers.js';

// biome-ignore lint/suspicious/noExplicitAny: the oracle reads fixture JSON loosely, field by field.
type Ev = Record<string, any>;
interface Expected {
  text: string;
  calls: { id: string; name: string; args: unknown }[];
  finish: string | undefined;
  prompt: number | undefined;
  errorCode: number | undefined;
}

function expectChat(events: Ev[]): Expected {
  let text = '';
  const slots = new Map<number, { id: string; name: string; args: string }>();
  let finish: string | undefined;
  let prompt: number | undefined;
  for (const e of events) {
    if (e.usage) prompt = e.usage.prompt_tokens;
    for (const c of e.choices ?? []) {
      if ((c.index ?? 0) !== 0) continue;
      text += (c.delta?.content ?? '') + (c.delta?.refusal ?? '');
      for (const tc of c.delta?.tool_calls ?? []) {
        const s = slots.get(tc.index) ?? { id: '', name: '', args: '' };
        if (tc.id) s.id ||= tc.id;
        if (tc.function?.name) s.name ||= tc.function.name;
        s.args += tc.function?.arguments ?? '';
        slots.set(tc.index, s);
      }
      if (c.finish_reason && !finish) finish = c.finish_reason;
    }
  }
  const map: Record<string, string> = {
    stop: 'STOP',
    tool_calls: 'STOP',
    length: 'MAX_TOKENS',
    content_filter: 'SAFETY',
  };
  const calls = [...slots.entries()]
    .sort((a, b) => a[0] - b[0])
    .map(([, s]) => ({ id: s.id, name: s.name, args: JSON.parse(s.args || '{}') }));
  return { text, calls, finish: finish ? map[finish] : undefined, prompt, errorCode: undefined };
}

function expectResponses(events: Ev[]): Expected {
  let text = '';
  const calls: Expected['calls'] = [];
  let finish: string | undefined;
  let prompt: number | undefined;
  let errorCode: number | undefined;
  for (const e of events) {
    if (e.type === 'response.output_text.delta' || e.type === 'response.refusal.delta') text += e.delta;
    if (e.type === 'response.output_item.done' && e.item.type === 'function_call')
      calls.push({ id: e.item.call_id, name: e.item.name, args: JSON.parse(e.item.arguments || '{}') });
    if (e.type === 'response.completed') {
      finish = 'STOP';
      prompt = e.response.usage?.input_tokens;
    }
    if ((e.type === 'error' || e.type === 'response.failed') && errorCode === undefined) errorCode = 429;
  }
  return { text, calls, finish, prompt, errorCode };
}

function expectAnthropic(events: Ev[]): Expected {
  let text = '';
  const blocks = new Map<number, { id: string; name: string; json: string }>();
  const calls: Expected['calls'] = [];
  let stop: string | undefined;
  let prompt = 0;
  let done = false;
  for (const e of events) {
    if (e.type === 'message_start') {
      const u = e.message.usage ?? {};
      prompt =
        (u.input_tokens ?? 0) + (u.cache_creation_input_tokens ?? 0) + (u.cache_read_input_tokens ?? 0);
    }
    if (e.type === 'content_block_start' && e.content_block.type === 'tool_use')
      blocks.set(e.index, { id: e.content_block.id, name: e.content_block.name, json: '' });
    if (e.type === 'content_block_start' && e.content_block.type === 'text')
      text += e.content_block.text ?? '';
    if (e.type === 'content_block_delta' && e.delta.type === 'text_delta') text += e.delta.text;
    if (e.type === 'content_block_delta' && e.delta.type === 'input_json_delta') {
      const b = blocks.get(e.index);
      if (b) b.json += e.delta.partial_json;
    }
    if (e.type === 'content_block_stop' && blocks.has(e.index)) {
      const b = blocks.get(e.index);
      if (b) calls.push({ id: b.id, name: b.name, args: JSON.parse(b.json || '{}') });
    }
    if (e.type === 'message_delta') {
      stop = e.delta.stop_reason;
      const u = e.usage ?? {};
      if (typeof u.input_tokens === 'number')
        prompt = u.input_tokens + (u.cache_creation_input_tokens ?? 0) + (u.cache_read_input_tokens ?? 0);
    }
    if (e.type === 'message_stop') done = true;
  }
  const map: Record<string, string> = {
    end_turn: 'STOP',
    tool_use: 'STOP',
    stop_sequence: 'STOP',
    pause_turn: 'STOP',
    max_tokens: 'MAX_TOKENS',
    refusal: 'SAFETY',
  };
  return { text, calls, finish: done && stop ? map[stop] : undefined, prompt, errorCode: undefined };
}

const EXPECT: Record<UpstreamKind, (events: Ev[]) => Expected> = {
  'openai-chat': expectChat,
  'openai-responses': expectResponses,
  anthropic: expectAnthropic,
};

const BASE: Record<UpstreamKind, (url: string) => string> = {
  'openai-chat': (u) => `${u}/v1`,
  'openai-responses': (u) => `${u}/v1`,
  anthropic: (u) => u,
};

for (const kind of ['openai-chat', 'openai-responses', 'anthropic'] as const) {
  describe.skipIf(!haveUpstreamFixtures)(
    `${kind}: recorded upstream streams through the gateway (${SKIP_REASON})`,
    () => {
      let upstream: TestUpstream;
      let gateway: Gateway;
      let current = '';
      beforeAll(async () => {
        upstream = await startUpstream((_req, res) => serveSse(res, current));
        gateway = await createGateway({
          logger: silentLogger,
          upstream: { kind, baseUrl: BASE[kind](upstream.url), apiKey: 'sk-upstream-secret' },
        });
      });
      afterAll(async () => {
        await gateway?.close();
        await upstream?.close();
      });

      const cases = fixtureFiles(kind).flatMap((file) =>
        fixtureBodies(kind, file).map((body, i, all) => ({
          name: all.length > 1 ? `${file} #${i + 1}` : file,
          body,
        })),
      );
      it('found fixture files for this protocol', () => {
        expect(cases.length).toBeGreaterThan(0);
      });

      // Each case replays fixtures/upstream/<kind>/<file>; the test name is the file name (and response number).
      for (const c of cases) {
        it(`translates ${c.name}`, async () => {
          current = c.body;
          const res = await post(
            `${gateway.url}/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse`,
            {
              ...{ contents: [{ role: 'user', parts: [{ text: 'hi' }] }] },
              generationConfig: { thinkingConfig: { includeThoughts: true } },
            },
            { 'x-goog-api-key': gateway.token },
          );
          const want = EXPECT[kind](upstreamEvents(c.body) as Ev[]);
          if (want.errorCode !== undefined && want.text === '' && want.calls.length === 0) {
            // An error before any content: the held status is the error's own, not a 200 and an error event.
            expect(res.status).toBe(want.errorCode);
            expect((JSON.parse(res.text) as { error: { code: number } }).error.code).toBe(want.errorCode);
            return;
          }
          expect(res.status).toBe(200);
          expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
          const frames = strictFrames(res.text);
          expect(genai130Frames(res.text)).toEqual(frames);
          const got = summarize(frames);
          expect(got.text).toBe(want.text);
          expect(got.calls.map(({ id, name, args }) => ({ id, name, args }))).toEqual(want.calls);
          if (want.errorCode !== undefined) {
            expect(got.error?.code).toBe(want.errorCode);
            expect(got.finish).toBeUndefined();
          } else {
            expect(got.error).toBeUndefined();
            expect(got.finish).toBe(want.finish);
            expect(got.usage?.promptTokenCount).toBe(want.prompt);
            // The final frame alone carries finishReason and usage.
            const last = frames.at(-1) as {
              candidates: { finishReason?: string }[];
              usageMetadata?: unknown;
            };
            expect(last.candidates[0]?.finishReason).toBe(want.finish);
            expect(last.usageMetadata).toBeDefined();
          }
          expect(res.text).not.toContain('sk-upstream-secret');
        });
      }
    },
  );
}
