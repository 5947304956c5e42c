// Upstream payloads read through one tolerant schema per event kind
// (docs/reference/gateway-translation.md#reading-upstream-events): unknown fields kept, a wrong-typed field
// reported and read as absent, the rest of the event still used, never a throw. The events are recorded ones
// (test/fixtures/upstream-providers/), with one field changed where the test is about a wrong type.
import { describe, expect, it } from 'vitest';
import { createWireReader } from '../../../src/gateway/upstream/wire.js';
import { chunkEvents } from '../../helpers/gateway/provider-recordings.js';

const mistral = chunkEvents('mistral/mistral-reasoning.chunks.txt');
const xai = chunkEvents('xai/xai-tool-call.chunks.txt');

describe('wire schemas', () => {
  it('a recorded chunk reads as it is, unknown fields kept (mistral/mistral-reasoning.chunks.txt)', () => {
    const reports: string[] = [];
    const read = createWireReader((m) => reports.push(m));
    const chunk = read('chatChunk', mistral[0]);
    expect(reports).toEqual([]);
    expect(chunk?.choices?.[0]?.delta?.content).toEqual([
      { type: 'thinking', thinking: [{ type: 'text', text: 'The user is asking' }] },
    ]);
    expect((chunk as Record<string, unknown>).object).toBe('chat.completion.chunk');
  });

  it('a wrong-typed field is reported with its path and read as absent; the rest of the event is kept', () => {
    const reports: string[] = [];
    const read = createWireReader((m) => reports.push(m));
    const last = structuredClone(xai.at(-1)) as { usage: Record<string, unknown> };
    last.usage.prompt_tokens = '307';
    const chunk = read('chatChunk', last);
    expect(reports).toHaveLength(1);
    expect(reports[0]).toContain('usage.prompt_tokens');
    expect(chunk?.usage?.prompt_tokens).toBeUndefined();
    expect(chunk?.usage?.completion_tokens).toBe(26);
    expect(chunk?.usage?.completion_tokens_details?.reasoning_tokens).toBe(227);
  });

  it('a bad array element is left out, the others kept; the same mismatch is reported once per stream', () => {
    const reports: string[] = [];
    const read = createWireReader((m) => reports.push(m));
    const call = structuredClone(xai.find((e) => JSON.stringify(e).includes('tool_calls'))) as {
      choices: { delta: { tool_calls: unknown[] } }[];
    };
    call.choices[0]?.delta.tool_calls.push(42);
    const first = read('chatChunk', call);
    read('chatChunk', call);
    expect(first?.choices?.[0]?.delta?.tool_calls).toHaveLength(1);
    expect(first?.choices?.[0]?.delta?.tool_calls?.[0]?.function?.name).toBe('weather');
    expect(reports).toHaveLength(1);
  });

  it('payloads that are not objects are undefined, never a throw', () => {
    const read = createWireReader();
    for (const v of [null, 42, 'x', [1], undefined]) expect(read('chatChunk', v)).toBeUndefined();
    expect(read('responsesEvent', { type: 'response.output_text.delta', delta: 5 })?.delta).toBeUndefined();
    expect(read('anthropicEvent', { type: 'ping' })?.type).toBe('ping');
  });
});
