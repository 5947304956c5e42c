// The held status of a streaming response (docs/reference/gateway-translation.md#errors-upstream-to-gemini):
// after the upstream's 200 the gateway waits for the first chunk before committing its own 200, and that wait
// is bounded by `headersHoldMs`. The streams are the xAI recording's own chunks
// (test/fixtures/upstream-providers/xai/xai-text.chunks.txt); the upstream holds the rest back until the test
// releases it, so what is asserted is an order of events, never a duration.
import type { ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { createGateway, type Gateway } from '../../src/gateway/index.js';
import { silentLogger } from '../../src/logger.js';
import { HELLO, startUpstream, strictFrames, type TestUpstream } from '../helpers/gateway/helpers.js';
import { chunkEvents } from '../helpers/gateway/provider-recordings.js';

const XAI = chunkEvents('xai/xai-text.chunks.txt').map((e) => `data: ${JSON.stringify(e)}\n\n`);

let upstream: TestUpstream | undefined;
let gateway: Gateway | undefined;
/** Releases the upstream's held back rest. */
let release: (() => void) | undefined;

afterEach(async () => {
  release?.();
  await gateway?.close();
  await upstream?.close();
  gateway = undefined;
  upstream = undefined;
  release = undefined;
});

/** An upstream that answers 200 and `head` at once, and the rest of the recording once released. */
async function start(
  head: string[],
  options: { headersHoldMs: number; keepAliveMs?: number },
): Promise<Gateway> {
  upstream = await startUpstream((_req, res: ServerResponse) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    // The status goes out now, as a provider's does, even when no body byte follows yet.
    res.flushHeaders();
    for (const frame of head) res.write(frame);
    release = () => {
      if (!res.writableEnded) res.end(`${XAI.slice(head.length).join('')}data: [DONE]\n\n`);
    };
  });
  gateway = await createGateway({
    upstream: { kind: 'openai-chat', baseUrl: `${upstream.url}/v1`, apiKey: 'sk-upstream-test' },
    modelMap: { '*': 'grok-3-mini' },
    logger: silentLogger,
    ...options,
  });
  return gateway;
}

function ask(gw: Gateway): Promise<Response> {
  return fetch(`${gw.url}/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-goog-api-key': gw.token },
    body: JSON.stringify({ ...HELLO, generationConfig: { thinkingConfig: { includeThoughts: true } } }),
  });
}

describe('a streaming response holds its status for the first chunk', () => {
  it('a silent upstream after its 200: the hold runs out, the 200 and keep-alives go out while the upstream still says nothing', async () => {
    const gw = await start([], { headersHoldMs: 200, keepAliveMs: 100 });
    const res = await ask(gw);
    // The headers arrived although the upstream has sent no byte of its body yet.
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    expect(strictFrames(first)[0]).toEqual({
      candidates: [{ content: { role: 'model', parts: [] }, index: 0 }],
    });
    release?.();
    let rest = '';
    for (let r = await reader.read(); !r.done; r = await reader.read())
      rest += new TextDecoder().decode(r.value);
    const frames = strictFrames(rest) as { candidates?: { finishReason?: string }[] }[];
    expect(frames.at(-1)?.candidates?.[0]?.finishReason).toBe('STOP');
  });

  it('the first chunk commits at once, long before a hold of a minute runs out', async () => {
    // The recording's first chunk: role and the first reasoning word, a thought.
    const gw = await start(XAI.slice(0, 1), { headersHoldMs: 60_000 });
    const res = await ask(gw);
    expect(res.status).toBe(200);
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    const first = strictFrames(new TextDecoder().decode((await reader.read()).value));
    expect(first[0]).toMatchObject({
      candidates: [{ content: { parts: [{ text: 'First', thought: true }] } }],
    });
    release?.();
    await reader.cancel();
  });
});
