// Reading the recorded provider streams of test/fixtures/upstream-providers/ (see its README for where each
// comes from): vercel/ai `*.chunks.txt` (one JSON event per line) and pydantic-ai VCR cassettes (`*.yaml`,
// raw SSE bodies), and a 127.0.0.1 upstream that answers each request with the next recorded body.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Content, GenerateContentConfig, GenerateContentResponse, GoogleGenAI } from '@google/genai';
import { parse } from 'yaml';
import { projectRoot, type RecordedRequest, serveSse, startUpstream, type TestUpstream } from './helpers.js';

export const RECORDINGS = join(projectRoot, 'test/fixtures/upstream-providers');

/** The JSON events of a `*.chunks.txt` recording, in order. */
export function chunkEvents(file: string): Record<string, unknown>[] {
  return readFileSync(join(RECORDINGS, file), 'utf8')
    .split('\n')
    .filter((l) => l.trim().length > 0)
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

/** A Chat Completions recording as the provider's SSE body: `data: <chunk>` frames, then `data: [DONE]`. */
export function chatSse(file: string): string {
  return `${chunkEvents(file)
    .map((e) => `data: ${JSON.stringify(e)}\n\n`)
    .join('')}data: [DONE]\n\n`;
}

/** A Responses recording as SSE bodies, one per recorded response (each starts at `response.created`). */
export function responsesSse(file: string): string[] {
  const bodies: string[] = [];
  for (const e of chunkEvents(file)) {
    if (e.type === 'response.created' || bodies.length === 0) bodies.push('');
    bodies[bodies.length - 1] += `event: ${String(e.type)}\ndata: ${JSON.stringify(e)}\n\n`;
  }
  return bodies;
}

interface Cassette {
  interactions: {
    request: { parsed_body?: unknown; uri?: string };
    response: { status: { code: number }; body: { string: string } };
  }[];
}

/** The raw SSE bodies of a VCR cassette, in interaction order. */
export function cassetteBodies(file: string): string[] {
  const cassette = parse(readFileSync(join(RECORDINGS, file), 'utf8')) as Cassette;
  return cassette.interactions.map((i) => i.response.body.string);
}

/** The `data:` payloads of an SSE body that parse as JSON (test-local reading, independent of the gateway). */
export function ssePayloads(body: string): Record<string, unknown>[] {
  return body
    .replace(/\r\n/g, '\n')
    .split('\n\n')
    .flatMap((block) => {
      const data = block
        .split('\n')
        .filter((l) => l.startsWith('data:'))
        .map((l) => l.slice(5).trimStart())
        .join('\n');
      if (!data || data === '[DONE]') return [];
      return [JSON.parse(data) as Record<string, unknown>];
    });
}

/** An upstream on 127.0.0.1 answering request n with `bodies[n]` (the last one again when they run out). */
export async function replayUpstream(bodies: string[]): Promise<TestUpstream> {
  let n = 0;
  return startUpstream((_req: RecordedRequest, res) => {
    const body = bodies[Math.min(n, bodies.length - 1)] ?? '';
    n += 1;
    serveSse(res, body);
  });
}

/** Everything a streamed turn produced, read with the real @google/genai client. */
export interface StreamedTurn {
  text: string;
  thoughts: string;
  /** The parts in order, as the SDK gave them. */
  parts: NonNullable<
    NonNullable<NonNullable<GenerateContentResponse['candidates']>[number]['content']>['parts']
  >;
  finishReason: string | undefined;
  usage: GenerateContentResponse['usageMetadata'];
  /** The error the SDK threw, if any (after the chunks before it). */
  error: (Error & { status?: number }) | undefined;
}

/** Streams one turn through the gateway with the real client and collects it. */
export async function streamTurn(
  client: GoogleGenAI,
  contents: Content[],
  config: GenerateContentConfig = { thinkingConfig: { includeThoughts: true } },
): Promise<StreamedTurn> {
  const turn: StreamedTurn = {
    text: '',
    thoughts: '',
    parts: [],
    finishReason: undefined,
    usage: undefined,
    error: undefined,
  };
  try {
    const stream = await client.models.generateContentStream({ model: 'gemini-2.5-pro', contents, config });
    for await (const chunk of stream) {
      const cand = chunk.candidates?.[0];
      for (const p of cand?.content?.parts ?? []) {
        turn.parts.push(p);
        if (p.thought) turn.thoughts += p.text ?? '';
        else if (typeof p.text === 'string') turn.text += p.text;
      }
      if (cand?.finishReason) turn.finishReason = cand.finishReason;
      if (chunk.usageMetadata) turn.usage = chunk.usageMetadata;
    }
  } catch (error) {
    turn.error = error as Error & { status?: number };
  }
  return turn;
}

/**
 * The recorded Groq `tool_use_failed` body (groq/test_tool_use_failed_error_streaming_with_text.yaml) with the
 * reasoning and text between its first chunk and its `event: error` left out: the recording's own first chunk
 * (role, empty content) and error event, byte for byte, so the error comes before any content. No recording
 * has that order for Chat; every event in it is Groq's.
 */
export function groqErrorBeforeText(): string {
  const body = cassetteBodies('groq/test_tool_use_failed_error_streaming_with_text.yaml')[0] ?? '';
  const blocks = body.split('\n\n').filter((b) => b.trim().length > 0);
  const error = blocks.find((b) => b.startsWith('event: error'));
  if (blocks[0] === undefined || error === undefined) throw new Error('the Groq recording changed shape');
  return `${blocks[0]}\n\n${error}\n\n`;
}
