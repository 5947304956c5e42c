// The real gateway against hostile upstreams and clients (docs/reference/gateway-checklist.md#hostile-peers):
// an unterminated upstream line or an endless event past the cap, an upstream that stalls before its headers or
// mid-stream, an upstream that echoes its key or a configured header value in an in-stream error, a request
// nested 5,000 levels deep, slow and idle client sockets, more connections than the cap, and a port in use.
// Sized to the limits each test sets, so nothing here sends hundreds of megabytes.
import { type ChildProcess, spawn } from 'node:child_process';
import { createServer, type Server, type ServerResponse } from 'node:http';
import { type AddressInfo, connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/errors.js';
import { createGateway, type Gateway, type GatewayOptions } from '../../src/gateway/index.js';
import type { UpstreamKind } from '../../src/gateway/upstream/upstream.js';
import { type Logger, silentLogger } from '../../src/logger.js';
import { HELLO, post, startUpstream, type TestUpstream } from '../helpers/gateway/helpers.js';

let upstream: TestUpstream | undefined;
let gateway: Gateway | undefined;
const sockets: Socket[] = [];
const pending: ServerResponse[] = [];
afterEach(async () => {
  for (const s of sockets.splice(0)) s.destroy();
  for (const r of pending.splice(0)) r.destroy();
  await gateway?.close();
  await upstream?.close();
  gateway = undefined;
  upstream = undefined;
});

const SSE = '/v1beta/models/m:streamGenerateContent?alt=sse';
const UNARY = '/v1beta/models/m:generateContent';

async function setup(
  kind: UpstreamKind,
  handler: (res: ServerResponse) => void | Promise<void>,
  options: Partial<GatewayOptions> = {},
  upstreamExtra: { apiKey?: string; headers?: Record<string, string> } = {},
): Promise<Gateway> {
  upstream = await startUpstream((_req, res) => handler(res));
  gateway = await createGateway({
    logger: silentLogger,
    ...options,
    upstream: {
      kind,
      baseUrl: kind === 'anthropic' ? upstream.url : `${upstream.url}/v1`,
      apiKey: upstreamExtra.apiKey ?? 'k',
      ...(upstreamExtra.headers && { headers: upstreamExtra.headers }),
    },
  });
  return gateway;
}

function ask(g: Gateway, path: string, body: unknown = HELLO) {
  return post(`${g.url}${path}`, body, { 'x-goog-api-key': g.token });
}

/** The `error` of the SSE body's error frame, if any. */
function sseError(text: string): { code: number; message: string; status: string } | undefined {
  for (const frame of text.split('\r\n\r\n')) {
    if (!frame.startsWith('data: ')) continue;
    const parsed = JSON.parse(frame.slice(6)) as {
      error?: { code: number; message: string; status: string };
    };
    if (parsed.error) return parsed.error;
  }
  return undefined;
}

/** The error of a JSON error response (an SSE request whose status was still held when it failed). */
function httpError(text: string): { code: number; message: string; status: string } | undefined {
  return (JSON.parse(text) as { error?: { code: number; message: string; status: string } }).error;
}

describe('gateway: hostile upstream bodies', () => {
  const CAP = 64 * 1024;

  it('an unterminated SSE line just over the cap ends the stream with a typed error; the process lives', async () => {
    const g = await setup(
      'openai-chat',
      (res) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.end(`data: ${'x'.repeat(CAP)}`);
      },
      { maxUpstreamEventChars: CAP },
    );
    // Nothing was streamed before the line went over: the held status is the error's own.
    const r = await ask(g, SSE);
    expect(r.status).toBe(502);
    const error = httpError(r.text);
    expect(error?.code).toBe(502);
    expect(error?.message).toContain(`SSE line longer than ${CAP} characters`);
    const unary = await ask(g, UNARY);
    expect(unary.status).toBe(502);
  });

  it('an event of many short lines past the cap is refused the same way', async () => {
    const g = await setup(
      'openai-chat',
      (res) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        // One event, never ended by a blank line.
        res.end(`${'data: yyyyyyyyyyyyyyyy\n'.repeat(Math.ceil(CAP / 16))}`);
      },
      { maxUpstreamEventChars: CAP },
    );
    const r = await ask(g, SSE);
    expect(r.status).toBe(502);
    const error = httpError(r.text);
    expect(error?.code).toBe(502);
    expect(error?.message).toContain('SSE event longer than');
  });

  it('a body just under the cap still goes through', async () => {
    const text = 'z'.repeat(CAP - 200);
    const g = await setup(
      'openai-chat',
      (res) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        const chunk = { id: 'x', choices: [{ index: 0, delta: { content: text }, finish_reason: 'stop' }] };
        res.end(`data: ${JSON.stringify(chunk)}\n\ndata: [DONE]\n\n`);
      },
      { maxUpstreamEventChars: CAP },
    );
    const r = await ask(g, UNARY);
    expect(r.status).toBe(200);
    expect(r.text).toContain(text);
  });
});

describe('gateway: upstream timeouts', () => {
  it('no response headers within upstreamHeadersTimeoutMs: a 504, unary and streaming', async () => {
    const g = await setup(
      'openai-chat',
      (res) => {
        pending.push(res); // never answered
      },
      { upstreamHeadersTimeoutMs: 300 },
    );
    const unary = await ask(g, UNARY);
    expect(unary.status).toBe(504);
    expect(JSON.parse(unary.text).error.message).toContain('upstream sent no response within 300 ms');
    const sse = await ask(g, SSE);
    expect(sse.status).toBe(504);
  });

  it('an upstream that never accepts: a 504 naming the connect phase after upstreamConnectTimeoutMs', async () => {
    // A child listens on 127.0.0.1 with backlog 1 and then blocks its event loop forever, so it never accepts;
    // once its accept queue is full the kernel drops further SYNs and a connect hangs.
    const script = `const s = require('node:net').createServer();
      s.listen({ host: '127.0.0.1', port: 0, backlog: 1 }, () => {
        process.stdout.write(String(s.address().port) + '\\n', () => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0));
      });`;
    const child: ChildProcess = spawn(process.execPath, ['-e', script], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    try {
      const port = await new Promise<number>((resolve, reject) => {
        child.once('error', reject);
        child.stdout?.once('data', (d: Buffer) => resolve(Number(String(d).trim())));
      });
      const connects = (): Promise<boolean> =>
        new Promise((resolve) => {
          const s = connect({ host: '127.0.0.1', port });
          sockets.push(s);
          const timer = setTimeout(() => resolve(false), 300);
          s.once('connect', () => {
            clearTimeout(timer);
            resolve(true);
          });
          s.once('error', () => {
            clearTimeout(timer);
            resolve(true);
          });
        });
      let filled = false;
      for (let i = 0; i < 16 && !filled; i++) filled = !(await connects());
      expect(filled).toBe(true);
      gateway = await createGateway({
        logger: silentLogger,
        upstreamConnectTimeoutMs: 500,
        upstream: { kind: 'openai-chat', baseUrl: `http://127.0.0.1:${port}/v1`, apiKey: 'k' },
      });
      const r = await ask(gateway, UNARY);
      expect(r.status).toBe(504);
      expect(JSON.parse(r.text).error.message).toContain('upstream did not connect within 500 ms');
    } finally {
      child.kill('SIGKILL');
    }
  }, 30_000);

  it('a stall mid-stream ends the SSE with a 504 error event, although keep-alives were flowing', async () => {
    const g = await setup(
      'openai-chat',
      (res) => {
        pending.push(res);
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write(
          `data: ${JSON.stringify({ id: 'x', choices: [{ index: 0, delta: { content: 'Hel' }, finish_reason: null }] })}\n\n`,
        );
        // …and nothing more, ever.
      },
      { upstreamIdleTimeoutMs: 400, keepAliveMs: 50 },
    );
    const r = await ask(g, SSE);
    expect(r.text).toContain('Hel');
    const error = sseError(r.text);
    expect(error?.code).toBe(504);
    expect(error?.message).toContain('upstream sent nothing for 400 ms');
  });
});

describe('gateway: secrets echoed by the upstream', () => {
  const KEY = 'UPSTREAMSECRET9876';
  const HEADER = 'HEADERVALUE5555';
  const echo = (res: ServerResponse): void => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.end(
      `event: error\ndata: ${JSON.stringify({
        type: 'error',
        error: { type: 'api_error', message: `bad key ${KEY} with header ${HEADER}` },
      })}\n\n`,
    );
  };

  it('the upstream key and every configured header value are redacted from in-stream errors, SSE and unary', async () => {
    const g = await setup('anthropic', echo, {}, { apiKey: KEY, headers: { 'x-tenant': HEADER } });
    const sse = await ask(g, SSE);
    const unary = await ask(g, UNARY);
    for (const text of [sse.text, unary.text]) {
      expect(text).toContain('[redacted]');
      expect(text).not.toContain(KEY);
      expect(text).not.toContain(HEADER);
    }
    // The error came before any content: an HTTP error (status held), redacted like the in-stream one.
    expect(sse.status).toBe(500);
    expect(httpError(sse.text)?.message).toContain('bad key [redacted]');
  });

  it('an upstream HTTP error echoing a header value is redacted too', async () => {
    const g = await setup(
      'openai-chat',
      (res) => {
        res.writeHead(400, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({ error: { message: `tenant ${HEADER} unknown`, type: 'invalid_request_error' } }),
        );
      },
      {},
      { headers: { 'x-tenant': HEADER } },
    );
    const r = await ask(g, UNARY);
    expect(r.status).toBe(400);
    expect(r.text).not.toContain(HEADER);
    expect(r.text).toContain('[redacted]');
  });
});

describe('gateway: bad requests', () => {
  it('a request nested 5,000 levels deep is a 400, not a 500', async () => {
    const g = await setup('openai-chat', (res) => void res.end());
    const deep = `{"contents":[{"role":"user","parts":[{"text":"hi"}]}],"x":${'['.repeat(5000)}${']'.repeat(5000)}}`;
    const r = await ask(g, UNARY, deep);
    expect(r.status).toBe(400);
    expect(JSON.parse(r.text).error.status).toBe('INVALID_ARGUMENT');
    expect(upstream?.requests).toHaveLength(0);
  });

  it('a port in use is a ConfigError naming port; nothing is left listening', async () => {
    const holder: Server = createServer();
    await new Promise<void>((r) => holder.listen(0, '127.0.0.1', r));
    const { port } = holder.address() as AddressInfo;
    try {
      const attempt = createGateway({
        logger: silentLogger,
        port,
        upstream: { kind: 'openai-chat', baseUrl: 'http://127.0.0.1:9/v1', apiKey: 'k' },
      });
      await expect(attempt).rejects.toBeInstanceOf(ConfigError);
      await expect(attempt).rejects.toMatchObject({ field: 'port' });
    } finally {
      await new Promise<void>((r) => holder.close(() => r()));
    }
  });

  it('a logger with a level that is not a function is a ConfigError; missing levels are no-ops', async () => {
    await expect(
      createGateway({
        logger: { warn: 5 } as unknown as Logger,
        upstream: { kind: 'openai-chat', baseUrl: 'http://127.0.0.1:9/v1', apiKey: 'k' },
      }),
    ).rejects.toMatchObject({ field: 'logger.warn' });
    gateway = await createGateway({
      logger: {} as unknown as Logger,
      upstream: { kind: 'openai-chat', baseUrl: 'http://127.0.0.1:9/v1', apiKey: 'k' },
    });
    // An unreachable upstream logs a warning: with no warn level it must not throw.
    const r = await ask(gateway, UNARY);
    expect(r.status).toBe(503);
  });
});

/** A raw socket to the gateway, resolved once connected; `closed` settles when the gateway drops it. */
function rawSocket(g: Gateway): Promise<{ socket: Socket; closed: Promise<string> }> {
  const { port } = new URL(g.url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), '127.0.0.1');
    sockets.push(socket);
    let got = '';
    socket.setEncoding('utf8');
    socket.on('data', (d: string) => {
      got += d;
    });
    const closed = new Promise<string>((r) => socket.on('close', () => r(got)));
    socket.once('connect', () => resolve({ socket, closed }));
    socket.once('error', reject);
  });
}

describe('gateway: slow and idle clients', () => {
  it('a socket that sends nothing is closed after idleTimeoutMs', async () => {
    const g = await setup('openai-chat', (res) => void res.end(), { idleTimeoutMs: 200 });
    const { closed } = await rawSocket(g);
    expect(await closed).toBe('');
  });

  it('headers that never finish get a 408 and the socket is closed (headersTimeoutMs)', async () => {
    const g = await setup('openai-chat', (res) => void res.end(), {
      headersTimeoutMs: 300,
      requestTimeoutMs: 300,
      idleTimeoutMs: 60_000,
    });
    const { socket, closed } = await rawSocket(g);
    socket.write(`POST ${UNARY} HTTP/1.1\r\nhost: 127.0.0.1\r\nx-slow: `);
    expect(await closed).toContain('408');
  });

  it('a body that never finishes loses its connection (requestTimeoutMs)', async () => {
    const g = await setup('openai-chat', (res) => void res.end(), {
      headersTimeoutMs: 300,
      requestTimeoutMs: 500,
      idleTimeoutMs: 60_000,
    });
    const { socket, closed } = await rawSocket(g);
    socket.write(
      `POST ${UNARY} HTTP/1.1\r\nhost: 127.0.0.1\r\nx-goog-api-key: ${g.token}\r\ncontent-type: application/json\r\ncontent-length: 1000\r\n\r\n{"contents":`,
    );
    await closed;
    expect(socket.destroyed).toBe(true);
    expect(upstream?.requests).toHaveLength(0);
  });

  it('connections over maxConnections are refused; the gateway still serves once they go', async () => {
    const g = await setup(
      'openai-chat',
      (res) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        const chunk = { id: 'x', choices: [{ index: 0, delta: { content: 'ok' }, finish_reason: 'stop' }] };
        res.end(`data: ${JSON.stringify(chunk)}\n\ndata: [DONE]\n\n`);
      },
      { maxConnections: 3, idleTimeoutMs: 60_000 },
    );
    const held = await Promise.all([0, 1, 2].map(() => rawSocket(g)));
    const extra = await rawSocket(g);
    // The fourth is accepted by the kernel and closed by the gateway at once, without an answer.
    expect(await extra.closed).toBe('');
    for (const h of held) h.socket.destroy();
    await Promise.all(held.map((h) => h.closed));
    const r = await ask(g, UNARY);
    expect(r.status).toBe(200);
  });
});
