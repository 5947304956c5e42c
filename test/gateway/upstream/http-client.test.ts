// The gateway's upstream call (gateway/upstream/http-client.ts) on kept-alive connections, driven by the real
// @google/genai client. An upstream that closes idle connections (Node servers and uvicorn do after 5 s) can
// reset a reused one just as the gateway sends on it: that request never reached the upstream, so it is sent
// once more on a new connection and the client sees an ordinary answer. A reset on a fresh connection is a real
// failure and is not retried. The upstream is raw TCP so that the reset falls exactly there; what it answers is
// the recorded xAI stream (test/fixtures/upstream-providers/xai/xai-text.chunks.txt, from vercel/ai).
import { readFileSync } from 'node:fs';
import { type AddressInfo, createServer, type Server, type Socket } from 'node:net';
import { GoogleGenAI } from '@google/genai';
import { afterEach, describe, expect, it } from 'vitest';
import { createGateway, type Gateway } from '../../../src/gateway/index.js';
import { silentLogger } from '../../../src/logger.js';

const CHUNKS = readFileSync(
  new URL('../../fixtures/upstream-providers/xai/xai-text.chunks.txt', import.meta.url),
  'utf8',
)
  .split('\n')
  .filter((l) => l.trim().length > 0);
const BODY = `${CHUNKS.map((l) => `data: ${l}\n\n`).join('')}data: [DONE]\n\n`;
const ANSWER = CHUNKS.map((l) => JSON.parse(l) as { choices?: { delta?: { content?: string } }[] })
  .map((c) => c.choices?.[0]?.delta?.content ?? '')
  .join('');

/**
 * A raw HTTP/1.1 upstream: each connection answers its first request with the recording (kept alive) and,
 * with `resetReused`, resets on the next; with `resetFirst`, resets at once.
 */
async function rawUpstream(mode: 'resetReused' | 'resetFirst') {
  const stats = { connections: 0, answered: 0 };
  const server: Server = createServer((socket: Socket) => {
    stats.connections++;
    let served = false;
    let head = '';
    socket.on('error', () => {});
    socket.on('data', (chunk) => {
      if (mode === 'resetFirst' || served) {
        socket.resetAndDestroy();
        return;
      }
      head += chunk.toString('latin1');
      const end = head.indexOf('\r\n\r\n');
      if (end === -1) return;
      const length = Number(/content-length: *(\d+)/i.exec(head)?.[1] ?? 0);
      if (head.length - end - 4 < length) return;
      served = true;
      stats.answered++;
      const body = Buffer.from(BODY);
      socket.write(
        `HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nContent-Length: ${body.length}\r\nConnection: keep-alive\r\n\r\n`,
      );
      socket.write(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, stats, port: (server.address() as AddressInfo).port };
}

let gateway: Gateway | undefined;
let upstreamServer: Server | undefined;
afterEach(async () => {
  await gateway?.close();
  await new Promise((resolve) => upstreamServer?.close(resolve) ?? resolve(undefined));
  gateway = undefined;
  upstreamServer = undefined;
});

async function through(mode: 'resetReused' | 'resetFirst') {
  const up = await rawUpstream(mode);
  upstreamServer = up.server;
  gateway = await createGateway({
    upstream: { kind: 'openai-chat', baseUrl: `http://127.0.0.1:${up.port}/v1`, apiKey: 'k' },
    modelMap: { '*': 'grok-3-mini' },
    logger: silentLogger,
  });
  const client = new GoogleGenAI({ apiKey: gateway.token, httpOptions: { baseUrl: gateway.url } });
  const ask = async () => {
    let text = '';
    const stream = await client.models.generateContentStream({ model: 'gemini-2.5-flash', contents: 'hi' });
    for await (const chunk of stream) text += chunk.text ?? '';
    return text;
  };
  return { ask, stats: up.stats };
}

describe('the upstream call on kept-alive connections', () => {
  it('a request reset on a reused connection is sent again on a new one: the client sees the answer', async () => {
    const { ask, stats } = await through('resetReused');
    expect(ANSWER.length).toBeGreaterThan(0);
    expect(await ask()).toBe(ANSWER);
    // The second request goes out on the kept-alive connection, which resets it; the gateway sends it again.
    expect(await ask()).toBe(ANSWER);
    expect(stats).toEqual({ connections: 2, answered: 2 });
  });

  it('a reset on a fresh connection is not retried: the client gets the error', async () => {
    const { ask, stats } = await through('resetFirst');
    await expect(ask()).rejects.toThrow();
    expect(stats.answered).toBe(0);
    // One connection per client attempt: the gateway itself did not send the request twice. (@google/genai
    // retries nothing by default.)
    expect(stats.connections).toBe(1);
  });
});
