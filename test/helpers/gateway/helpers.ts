// Shared test helpers for the gateway: fixture discovery (skipping when ../shared is absent), fixture → wire
// body reconstruction per fixtures/upstream/README.md, a tiny upstream HTTP server on 127.0.0.1, and a strict
// SSE reader that rejects anything but `data: <one-line JSON>\r\n\r\n`.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import { sharedPath } from '../shared-dir.js';

export const projectRoot = resolve(import.meta.dirname, '../../..');
export const upstreamFixtures = sharedPath('fixtures/upstream');
export const cliFixtures = sharedPath('fixtures/gemini-cli-0.61');
export const haveUpstreamFixtures = existsSync(upstreamFixtures);
export const haveCliFixtures = existsSync(cliFixtures);
export const SKIP_REASON = '../shared/fixtures absent: fixture-driven gateway tests skipped';

export function fixtureFiles(protocol: string): string[] {
  const dir = join(upstreamFixtures, protocol);
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => f.endsWith('.bin') || f.endsWith('.chunks.txt') || f.endsWith('.yaml'))
    .sort();
}

/** Block scalars (`string: |+`) of a VCR cassette: the raw SSE bodies, in interaction order. */
export function yamlBodies(text: string): string[] {
  const lines = text.split('\n');
  const out: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const m = /^(\s*)string: \|[+-]?\s*$/.exec(lines[i] ?? '');
    if (!m) continue;
    const keyIndent = (m[1] ?? '').length;
    const body: string[] = [];
    let blockIndent: number | undefined;
    let j = i + 1;
    for (; j < lines.length; j++) {
      const line = lines[j] ?? '';
      if (line.trim().length === 0) {
        body.push('');
        continue;
      }
      const indent = line.length - line.trimStart().length;
      if (indent <= keyIndent) break;
      blockIndent ??= indent;
      body.push(line.slice(blockIndent));
    }
    while (body.length > 0 && body.at(-1) === '' && body.at(-2) === '') body.pop();
    out.push(`${body.join('\n')}\n`);
    i = j - 1;
  }
  return out;
}

/** Rebuilds the upstream HTTP bodies a fixture stands for (one per recorded response). */
export function fixtureBodies(protocol: string, file: string): string[] {
  const text = readFileSync(join(upstreamFixtures, protocol, file), 'utf8');
  if (file.endsWith('.bin')) return [text];
  if (file.endsWith('.yaml')) return yamlBodies(text);
  const lines = text.split('\n').filter((l) => l.trim().length > 0);
  if (protocol === 'openai-chat') return [`${lines.map((l) => `data: ${l}\n\n`).join('')}data: [DONE]\n\n`];
  const start = protocol === 'anthropic' ? 'message_start' : 'response.created';
  const groups: string[][] = [];
  for (const line of lines) {
    const type = (JSON.parse(line) as { type: string }).type;
    if (type === start || groups.length === 0) groups.push([]);
    groups.at(-1)?.push(`event: ${type}\ndata: ${line}\n\n`);
  }
  return groups.map((g) => g.join(''));
}

/** `data:` payloads of an upstream SSE body (test-local splitter, independent of the gateway's parser). */
export function upstreamEvents(body: string): unknown[] {
  return body
    .replace(/\r\n/g, '\n')
    .split('\n\n')
    .flatMap((block) => {
      const data = block
        .split('\n')
        .filter((l) => l.startsWith('data:'))
        .map((l) => l.slice(5).replace(/^ /, ''))
        .join('\n');
      if (data.length === 0 || data === '[DONE]') return [];
      return [JSON.parse(data) as unknown];
    });
}

export interface RecordedRequest {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: unknown;
}

export interface TestUpstream {
  url: string;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

/** A tiny upstream on 127.0.0.1; `handler` answers each request (after its body is read and recorded). */
export async function startUpstream(
  handler: (req: RecordedRequest, res: ServerResponse, raw: IncomingMessage) => void | Promise<void>,
): Promise<TestUpstream> {
  const requests: RecordedRequest[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const recorded: RecordedRequest = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: text ? (JSON.parse(text) as unknown) : undefined,
      };
      requests.push(recorded);
      void handler(recorded, res, req);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

/** Serves a fixed SSE body. */
export function serveSse(res: ServerResponse, body: string): void {
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  res.end(body);
}

/**
 * Strict reader of the gateway's SSE output: the body must be exactly a sequence of
 * `data: <JSON without CR/LF>\r\n\r\n` frames. Throws on anything else.
 */
export function strictFrames(body: string): unknown[] {
  const out: unknown[] = [];
  let rest = body;
  while (rest.length > 0) {
    const m = /^data: ([^\r\n]+)\r\n\r\n/.exec(rest);
    if (!m?.[1]) throw new Error(`bad SSE framing at: ${JSON.stringify(rest.slice(0, 80))}`);
    out.push(JSON.parse(m[1]) as unknown);
    rest = rest.slice(m[0].length);
  }
  return out;
}

/**
 * The SSE splitter of @google/genai 1.30.0 (bundled in Gemini CLI 0.61.0), described in
 * docs/reference/gemini-clients.md#sse-parsers.
 */
export function genai130Frames(body: string): unknown[] {
  const responseLineRE = /^\s*data: (.*)(?:\n\n|\r\r|\r\n\r\n)/;
  const out: unknown[] = [];
  let buffer = body;
  let match = buffer.match(responseLineRE);
  while (match) {
    out.push(JSON.parse(match[1] ?? '') as unknown);
    buffer = buffer.slice(match[0].length);
    match = buffer.match(responseLineRE);
  }
  if (buffer.trim().length > 0) throw new Error('Incomplete JSON segment at the end');
  return out;
}

export interface GeminiChunkLike {
  candidates?: {
    content?: {
      parts?: {
        text?: string;
        thought?: boolean;
        thoughtSignature?: string;
        functionCall?: { id?: string; name: string; args: Record<string, unknown> };
      }[];
    };
    finishReason?: string;
  }[];
  usageMetadata?: Record<string, number>;
  error?: { code: number; status: string; message: string };
}

export function summarize(chunks: unknown[]): {
  text: string;
  thoughts: string;
  calls: { id?: string; name: string; args: Record<string, unknown>; signature?: string }[];
  finish: string | undefined;
  usage: Record<string, number> | undefined;
  error: GeminiChunkLike['error'];
} {
  let text = '';
  let thoughts = '';
  const calls: { id?: string; name: string; args: Record<string, unknown>; signature?: string }[] = [];
  let finish: string | undefined;
  let usage: Record<string, number> | undefined;
  let error: GeminiChunkLike['error'];
  for (const raw of chunks) {
    const c = raw as GeminiChunkLike;
    if (c.error) error = c.error;
    const cand = c.candidates?.[0];
    for (const p of cand?.content?.parts ?? []) {
      if (p.functionCall)
        calls.push({ ...p.functionCall, ...(p.thoughtSignature ? { signature: p.thoughtSignature } : {}) });
      else if (p.thought) thoughts += p.text ?? '';
      else if (typeof p.text === 'string') text += p.text;
    }
    if (cand?.finishReason) finish = cand.finishReason;
    if (c.usageMetadata) usage = c.usageMetadata;
  }
  return { text, thoughts, calls, finish, usage, error };
}

/** POSTs to the gateway and returns status, headers and raw body text. */
export async function post(
  url: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: Headers; text: string }> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

export const HELLO = { contents: [{ role: 'user', parts: [{ text: 'hi' }] }] };
