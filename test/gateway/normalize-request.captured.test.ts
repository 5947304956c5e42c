// Every captured client request in ../shared/fixtures/gemini-cli-0.61/*requests*.json (Gemini CLI 0.61 and
// @google/genai 3.3 traffic) is translated for each upstream and checked against that upstream's rules:
// Anthropic (max_tokens present, object schemas without top-level anyOf/oneOf/allOf, tool_result ids match the
// preceding tool_use ids and lead the user turn, thinking block first when thinking is on, no top_k/top_p with
// thinking), OpenAI Chat/Responses (object schemas, arrays have items, tool-call ids paired, no top_k).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseGenerateContentRequest } from '../../src/gateway/gemini-types.js';
import { normalizeRequest } from '../../src/gateway/normalize-request.js';
import { matchRoute } from '../../src/gateway/routes.js';
import { anthropicUpstream } from '../../src/gateway/upstream/anthropic.js';
import { openAIChatUpstream } from '../../src/gateway/upstream/openai-chat.js';
import { openAIResponsesUpstream } from '../../src/gateway/upstream/openai-responses.js';
import { cliFixtures, haveCliFixtures, SKIP_REASON } from '../helpers/gateway/helpers.js';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

function arraysHaveItems(schema: unknown, path = '$'): string[] {
  if (!isObj(schema)) return [];
  const bad: string[] = [];
  const t = schema.type;
  if ((t === 'array' || (Array.isArray(t) && t.includes('array'))) && schema.items === undefined)
    bad.push(path);
  for (const [k, v] of Object.entries(schema)) {
    if (k === 'properties' && isObj(v))
      for (const [p, s] of Object.entries(v)) bad.push(...arraysHaveItems(s, `${path}.${p}`));
    else if (Array.isArray(v)) {
      for (const [i, s] of v.entries()) bad.push(...arraysHaveItems(s, `${path}.${k}[${i}]`));
    } else if (isObj(v) && k !== 'properties') bad.push(...arraysHaveItems(v, `${path}.${k}`));
  }
  return bad;
}

function noUpperCaseTypes(schema: unknown): boolean {
  return !JSON.stringify(schema).match(/"type":"[A-Z]+"/);
}

interface Captured {
  file: string;
  id: number;
  url: string;
  body: unknown;
}

function captured(): Captured[] {
  if (!haveCliFixtures) return [];
  return readdirSync(cliFixtures)
    .filter((f) => /requests.*\.json$/.test(f))
    .sort()
    .flatMap((file) =>
      (
        JSON.parse(readFileSync(join(cliFixtures, file), 'utf8')) as {
          id: number;
          url: string;
          body: unknown;
        }[]
      )
        .filter((r) => isObj(r.body) && /:(stream)?[gG]enerateContent/.test(r.url))
        .map((r) => ({ file, id: r.id, url: r.url, body: r.body })),
    );
}

const cases = captured();

function normalized(c: Captured, upstreamModel: string) {
  const route = matchRoute('POST', new URL(c.url, 'http://127.0.0.1'));
  if (route?.kind !== 'generate') throw new Error(`not a generate route: ${c.url}`);
  const model = route.model;
  return normalizeRequest(parseGenerateContentRequest(c.body), model, upstreamModel);
}

describe.skipIf(!haveCliFixtures)(
  `captured Gemini CLI / SDK requests, translated per upstream (${SKIP_REASON})`,
  () => {
    it('found the captured requests', () => {
      expect(cases.length).toBeGreaterThanOrEqual(10);
    });

    for (const c of cases) {
      // gemini-cli-0.61/<file>, request <id>
      describe(`${c.file} #${c.id}`, () => {
        it('Anthropic: accepted shape', () => {
          const req = normalized(c, 'claude-sonnet-4-5');
          const body = anthropicUpstream({
            kind: 'anthropic',
            baseUrl: 'http://x',
            apiKey: 'k',
          }).buildRequest(req).body;
          expect(typeof body.max_tokens).toBe('number');
          expect(body.max_tokens as number).toBeGreaterThan(0);
          const source = c.body as Obj;
          if (source.systemInstruction || source.system_instruction) {
            expect(Array.isArray(body.system)).toBe(true);
            expect((body.messages as Obj[]).every((m) => m.role !== 'system')).toBe(true);
          }
          for (const tool of (body.tools ?? []) as Obj[]) {
            if (tool.type) continue; // server tools
            const schema = tool.input_schema as Obj;
            expect(schema.type).toBe('object');
            expect(schema.anyOf ?? schema.oneOf ?? schema.allOf).toBeUndefined();
            expect(noUpperCaseTypes(schema)).toBe(true);
          }
          const messages = body.messages as { role: string; content: Obj[] }[];
          expect(messages[0]?.role).toBe('user');
          for (let i = 1; i < messages.length; i++) expect(messages[i]?.role).not.toBe(messages[i - 1]?.role);
          for (const [i, m] of messages.entries()) {
            const results = m.content.filter((b) => b.type === 'tool_result');
            if (results.length === 0) continue;
            const previous = messages[i - 1];
            const useIds = (previous?.content ?? []).filter((b) => b.type === 'tool_use').map((b) => b.id);
            expect(results.map((r) => r.tool_use_id)).toEqual(useIds);
            expect(m.content.slice(0, results.length).every((b) => b.type === 'tool_result')).toBe(true);
          }
          if (body.thinking !== undefined) {
            expect(body.temperature).toBeUndefined();
            expect(body.top_k).toBeUndefined();
            expect(body.top_p).toBeUndefined();
            expect(body.max_tokens as number).toBeGreaterThan(
              (body.thinking as { budget_tokens: number }).budget_tokens,
            );
            const lastToolTurn = messages
              .filter((m) => m.role === 'assistant' && m.content.some((b) => b.type === 'tool_use'))
              .at(-1);
            if (lastToolTurn) expect(lastToolTurn.content[0]?.type).toMatch(/thinking/);
          } else {
            expect(body.temperature !== undefined && body.top_p !== undefined).toBe(false);
          }
        });

        it('OpenAI Chat: accepted shape', () => {
          const req = normalized(c, 'gpt-4.1');
          const body = openAIChatUpstream({
            kind: 'openai-chat',
            baseUrl: 'https://api.openai.com/v1',
            apiKey: 'k',
          }).buildRequest(req).body;
          expect(body.top_k).toBeUndefined();
          expect(body.stream_options).toEqual({ include_usage: true });
          for (const tool of (body.tools ?? []) as { function: { parameters: Obj } }[]) {
            expect(tool.function.parameters.type).toBe('object');
            expect(arraysHaveItems(tool.function.parameters)).toEqual([]);
            expect(noUpperCaseTypes(tool.function.parameters)).toBe(true);
          }
          const messages = body.messages as Obj[];
          const source = c.body as Obj;
          if (source.systemInstruction) expect(messages[0]?.role).toBe('system');
          const open = new Set<string>();
          for (const m of messages) {
            if (m.role === 'assistant')
              for (const tc of (m.tool_calls ?? []) as { id: string }[]) open.add(tc.id);
            if (m.role === 'tool') {
              expect(open.has(m.tool_call_id as string)).toBe(true);
              open.delete(m.tool_call_id as string);
            }
          }
          expect([...open]).toEqual([]);
          const schema = (body.response_format as { json_schema?: { schema: unknown } } | undefined)
            ?.json_schema?.schema;
          if (schema) expect(noUpperCaseTypes(schema)).toBe(true);
        });

        it('OpenAI Responses: accepted shape', () => {
          const req = normalized(c, 'gpt-5');
          const body = openAIResponsesUpstream({
            kind: 'openai-responses',
            baseUrl: 'https://api.openai.com/v1',
            apiKey: 'k',
          }).buildRequest(req).body;
          expect(body.temperature).toBeUndefined(); // a reasoning model
          if ((c.body as Obj).systemInstruction) expect(typeof body.instructions).toBe('string');
          for (const tool of (body.tools ?? []) as Obj[]) {
            if (tool.type !== 'function') continue;
            expect(tool.strict).toBe(false);
            expect((tool.parameters as Obj).type).toBe('object');
            expect(arraysHaveItems(tool.parameters)).toEqual([]);
          }
          const open = new Set<string>();
          for (const item of body.input as Obj[]) {
            if (item.type === 'function_call') open.add(item.call_id as string);
            if (item.type === 'function_call_output') {
              expect(open.has(item.call_id as string)).toBe(true);
              open.delete(item.call_id as string);
            }
          }
          expect([...open]).toEqual([]);
        });
      });
    }
  },
);
