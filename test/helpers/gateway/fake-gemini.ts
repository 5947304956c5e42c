/**
 * A tiny scripted Gemini API endpoint (docs/reference/gemini-api.md) on 127.0.0.1: `POST /{ver}/models/{model}:
 * streamGenerateContent?alt=sse` answers with the next scripted turn as `data: <json>\r\n\r\n` frames (text,
 * `functionCall` with ids, `thought` parts, usage on the final chunk with `finishReason`), `:generateContent`
 * answers unary (a JSON object filling `responseJsonSchema` for Gemini CLI's routing classifier), `:countTokens`
 * and `GET /{ver}/models` answer too. It checks `x-goog-api-key` and records every request, so tests can prove
 * what a real client (Gemini CLI, `@google/genai`) or the simulator sent.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/** A Gemini content part as the API writes it (camelCase). */
export type GeminiPart = Record<string, unknown>;

/** One request the endpoint received. */
export interface FakeGeminiRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  /** `streamGenerateContent`, `generateContent`, `countTokens`, `models` or `other`. */
  action: string;
  /** The model id from the path. */
  model: string | undefined;
  body: Record<string, unknown> | undefined;
}

/** A scripted model turn: each inner array is one SSE chunk's parts. */
export interface FakeTurn {
  chunks: GeminiPart[][];
  /** Default `STOP`; `null` leaves it out (a broken stream clients must not take as complete). */
  finishReason?: string | null;
  usage?: { promptTokenCount: number; candidatesTokenCount: number; thoughtsTokenCount?: number };
  /** Pause between chunks, ms (default 5). */
  delayMs?: number;
  /** Awaited before the last chunk is sent: lets a test see the earlier chunks arrive first. */
  gate?: Promise<void>;
  /** Called once the chunks before the gate are written (the client has the partial stream). */
  onGate?: () => void;
}

/** An HTTP error in Google's shape (`{"error":{code,message,status}}`). */
export interface FakeError {
  error: { code: number; message: string; status: string };
}

/** What the next `streamGenerateContent` gets: a turn, an error, or a function of the request. */
export type FakeReply = FakeTurn | FakeError | ((req: FakeGeminiRequest) => FakeTurn | FakeError);

/** Builders for common turns. */
export const turns = {
  /** Text streamed in the given pieces. */
  text(...pieces: string[]): FakeTurn {
    return { chunks: pieces.map((text) => [{ text }]) };
  },
  /** A thought part, then function calls in one chunk each (ids kept on the wire). */
  calls(calls: { id?: string; name: string; args: Record<string, unknown> }[], thought?: string): FakeTurn {
    const chunks: GeminiPart[][] = [];
    if (thought !== undefined)
      chunks.push([{ text: thought, thought: true, thoughtSignature: 'SIG-THOUGHT' }]);
    for (const [i, call] of calls.entries()) {
      const functionCall: Record<string, unknown> = { name: call.name, args: call.args };
      if (call.id !== undefined) functionCall.id = call.id;
      chunks.push([
        i === 0 ? { functionCall, thoughtSignature: `SIG-${call.id ?? call.name}` } : { functionCall },
      ]);
    }
    return { chunks };
  },
  error(code: number, status: string, message: string): FakeError {
    return { error: { code, message, status } };
  },
};

/** Every `functionResponse` part in a request's contents. */
export function functionResponses(body: Record<string, unknown> | undefined): Record<string, unknown>[] {
  const contents = (body?.contents as { parts?: GeminiPart[] }[] | undefined) ?? [];
  return contents
    .flatMap((c) => c.parts ?? [])
    .flatMap((p) => (p.functionResponse ? [p.functionResponse as Record<string, unknown>] : []));
}

/** Every `functionCall` part of the model turns in a request's contents (as the client replays them). */
export function replayedCalls(body: Record<string, unknown> | undefined): GeminiPart[] {
  const contents = (body?.contents as { role?: string; parts?: GeminiPart[] }[] | undefined) ?? [];
  return contents
    .filter((c) => c.role === 'model')
    .flatMap((c) => c.parts ?? [])
    .filter((p) => p.functionCall !== undefined);
}

/** A JSON value satisfying a (Gemini-dialect) schema's required properties: enough for the CLI's classifier. */
function fill(schema: Record<string, unknown> | undefined): unknown {
  const type = String(schema?.type ?? 'object').toLowerCase();
  if (type === 'object') {
    const props = (schema?.properties as Record<string, Record<string, unknown>> | undefined) ?? {};
    return Object.fromEntries(Object.entries(props).map(([key, sub]) => [key, fill(sub)]));
  }
  if (type === 'integer' || type === 'number') return 5;
  if (type === 'boolean') return false;
  if (type === 'array') return [];
  const enumValues = schema?.enum as unknown[] | undefined;
  return enumValues?.[0] ?? 'simple';
}

const ROUTE = /^\/(v1|v1beta|v1alpha)\/models(?:\/([^:]+)(?::([A-Za-z]+))?)?$/;

/** The running endpoint. */
export class FakeGemini {
  readonly requests: FakeGeminiRequest[] = [];
  private readonly queue: FakeReply[] = [];
  private readonly sockets = new Set<Socket>();

  private constructor(
    private readonly server: Server,
    /** `http://127.0.0.1:<port>`: what `GOOGLE_GEMINI_BASE_URL` takes. */
    readonly url: string,
    /** The key every request must carry. */
    readonly apiKey: string,
    private readonly fallback: FakeReply,
  ) {}

  /** Starts on an ephemeral port. `fallback` answers when nothing is queued (default: text "OK"). */
  static async start(opts: { apiKey?: string; fallback?: FakeReply } = {}): Promise<FakeGemini> {
    let self: FakeGemini | undefined;
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on(
        'end',
        () =>
          void (self as FakeGemini).handle(
            req.method ?? 'GET',
            req.url ?? '/',
            req.headers,
            Buffer.concat(chunks).toString('utf8'),
            res,
          ),
      );
    });
    server.on('connection', (socket) => {
      socket.setNoDelay(true);
      self?.sockets.add(socket);
      socket.on('close', () => self?.sockets.delete(socket));
    });
    await new Promise<void>((ok, fail) => {
      server.once('error', fail);
      server.listen(0, '127.0.0.1', () => ok());
    });
    const { port } = server.address() as AddressInfo;
    self = new FakeGemini(
      server,
      `http://127.0.0.1:${port}`,
      opts.apiKey ?? 'fake-gemini-key',
      opts.fallback ?? turns.text('OK'),
    );
    return self;
  }

  /** Queues replies for the next `streamGenerateContent` (or unary `generateContent` without a JSON schema) calls. */
  enqueue(...replies: FakeReply[]): this {
    this.queue.push(...replies);
    return this;
  }

  /** How many queued replies no request has taken yet. */
  get pending(): number {
    return this.queue.length;
  }

  /** The recorded model calls (stream and unary), in order. */
  get modelCalls(): FakeGeminiRequest[] {
    return this.requests.filter(
      (r) => r.action === 'streamGenerateContent' || r.action === 'generateContent',
    );
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((ok) => this.server.close(() => ok()));
  }

  private async handle(
    method: string,
    rawUrl: string,
    headers: IncomingHttpHeaders,
    rawBody: string,
    res: import('node:http').ServerResponse,
  ): Promise<void> {
    const url = new URL(rawUrl, 'http://127.0.0.1');
    const match = ROUTE.exec(url.pathname);
    let body: Record<string, unknown> | undefined;
    try {
      body = rawBody === '' ? undefined : (JSON.parse(rawBody) as Record<string, unknown>);
    } catch {
      body = undefined;
    }
    const action = match === null ? 'other' : (match[3] ?? 'models');
    const request: FakeGeminiRequest = {
      method,
      path: url.pathname,
      query: url.searchParams,
      headers,
      action,
      model: match?.[2],
      body,
    };
    this.requests.push(request);
    const json = (status: number, value: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json; charset=UTF-8' });
      res.end(JSON.stringify(value));
    };
    const key = headers['x-goog-api-key'] ?? url.searchParams.get('key') ?? undefined;
    if (key !== this.apiKey) {
      json(400, {
        error: {
          code: 400,
          message: 'API key not valid. Please pass a valid API key.',
          status: 'INVALID_ARGUMENT',
        },
      });
      return;
    }
    if (match === null) {
      json(404, {
        error: { code: 404, message: `${method} ${url.pathname} not found`, status: 'NOT_FOUND' },
      });
      return;
    }
    if (action === 'models') {
      const model = (name: string) => ({
        name: `models/${name}`,
        displayName: name,
        supportedGenerationMethods: ['generateContent', 'streamGenerateContent', 'countTokens'],
      });
      json(200, match[2] === undefined ? { models: [model('gemini-2.5-flash')] } : model(match[2]));
      return;
    }
    if (action === 'countTokens') {
      json(200, { totalTokens: Math.max(1, Math.ceil(rawBody.length / 4)) });
      return;
    }
    const config = (body?.generationConfig ?? {}) as Record<string, unknown>;
    const schema = (config.responseJsonSchema ?? config.responseSchema) as
      | Record<string, unknown>
      | undefined;
    if (action === 'generateContent' && schema !== undefined) {
      // Gemini CLI's routing classifier and other utility calls: a schema-shaped JSON answer, never the script.
      json(200, this.unary({ chunks: [[{ text: JSON.stringify(fill(schema)) }]] }));
      return;
    }
    const next = this.queue.shift() ?? this.fallback;
    const reply = typeof next === 'function' ? next(request) : next;
    if ('error' in reply) {
      json(reply.error.code, reply);
      return;
    }
    if (action === 'generateContent') {
      json(200, this.unary(reply));
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    res.flushHeaders();
    const usage = this.usage(reply);
    for (const [i, parts] of reply.chunks.entries()) {
      const last = i === reply.chunks.length - 1;
      if (last && reply.gate !== undefined) {
        reply.onGate?.();
        await reply.gate;
      }
      const candidate: Record<string, unknown> = { content: { role: 'model', parts }, index: 0 };
      if (last && reply.finishReason !== null) candidate.finishReason = reply.finishReason ?? 'STOP';
      const chunk: Record<string, unknown> = {
        candidates: [candidate],
        modelVersion: match[2],
        responseId: 'fake-response',
      };
      if (last) chunk.usageMetadata = usage;
      res.write(`data: ${JSON.stringify(chunk)}\r\n\r\n`);
      if (!last) await new Promise((ok) => setTimeout(ok, reply.delayMs ?? 5));
    }
    if (reply.chunks.length === 0) {
      res.write(
        `data: ${JSON.stringify({ candidates: [{ content: { role: 'model', parts: [] }, finishReason: reply.finishReason ?? 'STOP', index: 0 }], usageMetadata: usage })}\r\n\r\n`,
      );
    }
    res.end();
  }

  private usage(turn: FakeTurn): Record<string, number> {
    const u = turn.usage ?? { promptTokenCount: 12, candidatesTokenCount: 4 };
    return {
      ...u,
      totalTokenCount: u.promptTokenCount + u.candidatesTokenCount + (u.thoughtsTokenCount ?? 0),
    };
  }

  private unary(turn: FakeTurn): Record<string, unknown> {
    return {
      candidates: [
        {
          content: { role: 'model', parts: turn.chunks.flat() },
          finishReason: turn.finishReason ?? 'STOP',
          index: 0,
        },
      ],
      usageMetadata: this.usage(turn),
      modelVersion: 'fake',
    };
  }
}
