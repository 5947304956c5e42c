/**
 * `createGateway`: a Gemini-compatible HTTP endpoint on 127.0.0.1 that forwards to an OpenAI Chat, OpenAI
 * Responses or Anthropic upstream and streams the answer back token by token
 * (docs/reference/gateway-checklist.md). One per-run token guards it; the upstream key stays in this process.
 * Every failure becomes a Google-shaped error; nothing a client sends can crash it.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { ConfigError } from '../errors.js';
import { checkDuration } from '../internal/duration.js';
import { createToken } from '../internal/token.js';
import { checkedLogger, describeError, type Logger } from '../logger.js';
import type { UpstreamObserver, UpstreamTrace } from '../model/upstream-trace.js';
import { presentedKey, tokenMatches } from './auth.js';
import { countTokens } from './count-tokens.js';
import {
  fromUpstreamResponse,
  GatewayError,
  type GoogleErrorDetail,
  prematureEnd,
  redact,
} from './errors.js';
import { type GeminiSink, StreamingSink, UnarySink } from './gemini-sink.js';
import { parseCountTokensRequest, parseGenerateContentRequest, type UsageMetadata } from './gemini-types.js';
import { usageFromGemini } from './gemini-usage.js';
import { sendJson } from './json-response.js';
import { bareModelId, compileModelMap, type ModelMap } from './model-map.js';
import { normalizeRequest } from './normalize-request.js';
import { matchRoute } from './routes.js';
import { SseWriter } from './sse-writer.js';
import { anthropicUpstream } from './upstream/anthropic.js';
import {
  createAgents,
  joinUrl,
  postJson,
  readBody,
  type UpstreamAgents,
  UpstreamTimeoutError,
} from './upstream/http-client.js';
import { openAIChatUpstream } from './upstream/openai-chat.js';
import { openAIResponsesUpstream } from './upstream/openai-responses.js';
import { createSseDecoder, DEFAULT_MAX_UPSTREAM_EVENT_CHARS } from './upstream/sse-parse.js';
import type { Upstream, UpstreamConfig } from './upstream/upstream.js';

/** Options of {@link createGateway}. */
export interface GatewayOptions {
  /** The upstream provider. `baseUrl`: OpenAI kinds include `/v1`, Anthropic does not. */
  upstream: UpstreamConfig;
  /**
   * Gemini model id pattern → upstream model (`*` globs; exact ids first, then the most specific glob). `'*'`
   * alone pins every request, auxiliary and title calls included, to one model. Unmatched ids pass through.
   */
  modelMap?: Record<string, string>;
  /** Port on 127.0.0.1; default: an ephemeral port. */
  port?: number;
  /** Where diagnostics go (never keys or tokens). Default: warnings and errors to stderr. */
  logger?: Logger;
  /** Keep-alive chunk interval while the upstream is silent, in ms (default 15,000; 0 disables; at most 2^31−1). */
  keepAliveMs?: number;
  /**
   * How long a streaming request waits for the upstream's status before committing `200` and keep-alives, in
   * ms (default 45,000 — under Gemini CLI's 60 s headers timeout; 0: no limit). Later upstream errors arrive
   * in-stream.
   */
  headersGuardMs?: number;
  /**
   * After the upstream's `200`, how long a streaming response holds its own status for the first chunk, in ms
   * (default 5,000; never past `headersGuardMs`; 0: commit at once). An upstream error before any content
   * then reaches the client as its HTTP status (a 4xx that clients do not retry) instead of an in-stream
   * error after a `200`, which Gemini CLI retries whatever it says. The first text, thought or call commits.
   */
  headersHoldMs?: number;
  /** Largest accepted request body in bytes (default 32 MiB: inline images). */
  maxBodyBytes?: number;
  /** Time for a client to send a request's headers, in ms (default 10,000). */
  headersTimeoutMs?: number;
  /** Time for a client to send a whole request (headers and body), in ms (default 60,000; at least `headersTimeoutMs`). */
  requestTimeoutMs?: number;
  /** Time a client socket may sit with no request in flight, in ms (default 5,000). */
  idleTimeoutMs?: number;
  /** Most client sockets open at once; more are refused (default 128). */
  maxConnections?: number;
  /** Time for the upstream's TCP (and TLS) connect, in ms (default 15,000; 0 disables). */
  upstreamConnectTimeoutMs?: number;
  /** Time for the upstream's status and headers after the request, in ms (default 300,000; 0 disables). */
  upstreamHeadersTimeoutMs?: number;
  /**
   * Longest silence of the upstream while its body streams, in ms (default 300,000; 0 disables). Past it the
   * request ends with a 504 (in-stream once the 200 is out): the gateway's own keep-alives never hide a stall.
   */
  upstreamIdleTimeoutMs?: number;
  /** Longest upstream SSE line or event, in characters (default 16 MiB); a longer one ends the request (502). */
  maxUpstreamEventChars?: number;
  /**
   * Called once per generateContent request that finished, with the upstream's own token counts (what the
   * provider bills). A throw is logged, never propagated.
   */
  onUsage?: (report: GatewayUsageReport) => void;
  /**
   * @internal Sees each upstream request (the Agent's telemetry in provider mode): it returns headers to add
   * (W3C `traceparent`) and is told of the first token and the end. Never throws.
   */
  upstreamObserver?: UpstreamObserver | undefined;
}

/** One finished request's usage, as the upstream reported it. */
export interface GatewayUsageReport {
  /** The Gemini model id the client asked for. */
  requestedModel: string;
  /** The upstream model the request went to (after the model map). */
  upstreamModel: string;
  /** The upstream's counts in Gemini's shape. */
  usage: UsageMetadata;
}

/** A running gateway. */
export interface Gateway {
  /** `http://127.0.0.1:PORT` — the value for `GOOGLE_GEMINI_BASE_URL`. */
  readonly url: string;
  /** The per-run key clients must present (`x-goog-api-key`, `?key=` or `Bearer`). */
  readonly token: string;
  /** Stops listening, aborts in-flight upstream requests and closes upstream connections. */
  close(): Promise<void>;
}

const KINDS = ['openai-chat', 'openai-responses', 'anthropic'] as const;

/** Default time for a client to send a request's headers (ms). */
export const DEFAULT_GATEWAY_HEADERS_TIMEOUT_MS = 10_000;
/** Default time for a client to send a whole request, body included (ms): 32 MiB over loopback takes well under it. */
export const DEFAULT_GATEWAY_REQUEST_TIMEOUT_MS = 60_000;
/** Default time a client socket may sit with no request in flight (ms). */
export const DEFAULT_GATEWAY_IDLE_TIMEOUT_MS = 5_000;
/** Default cap on open client sockets: a CLI's concurrent requests stay far below it. */
export const DEFAULT_GATEWAY_MAX_CONNECTIONS = 128;
/** Default time a streaming response holds its status for the first chunk after the upstream's 200 (ms). */
export const DEFAULT_HEADERS_HOLD_MS = 5_000;
/** Default time for the upstream's TCP/TLS connect (ms). */
export const DEFAULT_UPSTREAM_CONNECT_TIMEOUT_MS = 15_000;
/** Default time for the upstream's status and headers (ms): a slow model may think before answering. */
export const DEFAULT_UPSTREAM_HEADERS_TIMEOUT_MS = 300_000;
/** Default longest silence of a streaming upstream body (ms). */
export const DEFAULT_UPSTREAM_IDLE_TIMEOUT_MS = 300_000;

function validate(options: GatewayOptions): void {
  const u = options?.upstream;
  if (!u || typeof u !== 'object') throw new ConfigError('upstream', 'is required');
  if (!KINDS.includes(u.kind)) throw new ConfigError('upstream.kind', `must be one of ${KINDS.join(', ')}`);
  let parsed: URL;
  try {
    parsed = new URL(u.baseUrl);
  } catch {
    throw new ConfigError('upstream.baseUrl', 'must be an absolute http(s) URL');
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
    throw new ConfigError('upstream.baseUrl', 'must be an absolute http(s) URL');
  if (parsed.username || parsed.password)
    throw new ConfigError('upstream.baseUrl', 'must not carry credentials; use apiKey or headers');
  if (typeof u.apiKey !== 'string') throw new ConfigError('upstream.apiKey', 'must be a string');
  if (u.encryptedReasoning !== undefined) {
    if (typeof u.encryptedReasoning !== 'boolean')
      throw new ConfigError('upstream.encryptedReasoning', 'must be a boolean');
    if (u.kind !== 'openai-responses')
      throw new ConfigError('upstream.encryptedReasoning', 'applies to an openai-responses upstream only');
  }
  if (u.headers !== undefined) {
    for (const [k, v] of Object.entries(u.headers))
      if (typeof v !== 'string') throw new ConfigError(`upstream.headers.${k}`, 'must be a string');
  }
  if (
    options.port !== undefined &&
    (!Number.isInteger(options.port) || options.port < 0 || options.port > 65535)
  )
    throw new ConfigError('port', 'must be an integer from 0 to 65535');
  for (const key of [
    'keepAliveMs',
    'headersGuardMs',
    'headersHoldMs',
    'upstreamConnectTimeoutMs',
    'upstreamHeadersTimeoutMs',
    'upstreamIdleTimeoutMs',
  ] as const)
    checkDuration(key, options[key], { allowZero: true });
  for (const key of ['headersTimeoutMs', 'requestTimeoutMs', 'idleTimeoutMs'] as const)
    checkDuration(key, options[key], { integer: true });
  const { maxBodyBytes } = options;
  if (maxBodyBytes !== undefined && (!Number.isFinite(maxBodyBytes) || maxBodyBytes < 0))
    throw new ConfigError('maxBodyBytes', 'must be a non-negative number');
  for (const key of ['maxConnections', 'maxUpstreamEventChars'] as const) {
    const v = options[key];
    if (v !== undefined && (!Number.isSafeInteger(v) || v <= 0))
      throw new ConfigError(key, 'must be a positive integer');
  }
  if ((options.headersTimeoutMs ?? 0) > (options.requestTimeoutMs ?? Number.POSITIVE_INFINITY))
    throw new ConfigError('headersTimeoutMs', 'must not be larger than requestTimeoutMs');
  checkedLogger(options.logger);
}

/** Deepest JSON nesting accepted in a request; deeper is a 400 (Gemini's own request shapes nest a few dozen). */
const MAX_JSON_DEPTH = 512;

/** Whether `value` nests deeper than `max` arrays/objects (iterative: a deep value must not exhaust the stack). */
function nestsDeeperThan(value: unknown, max: number): boolean {
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop() as [unknown, number];
    if (typeof v !== 'object' || v === null) continue;
    if (depth > max) return true;
    for (const child of Array.isArray(v) ? v : Object.values(v)) {
      if (typeof child === 'object' && child !== null) stack.push([child, depth + 1]);
    }
  }
  return false;
}

function upstreamFor(config: UpstreamConfig): Upstream {
  if (config.kind === 'openai-chat') return openAIChatUpstream(config);
  if (config.kind === 'openai-responses') return openAIResponsesUpstream(config);
  return anthropicUpstream(config);
}

/** `error` with every secret (the upstream key, each configured header value) removed from its text. */
function redactError(error: GatewayError, secrets: readonly string[]): GatewayError {
  const details = error.details?.map(
    (d) => JSON.parse(redact(JSON.stringify(d), secrets)) as GoogleErrorDetail,
  );
  return new GatewayError(error.code, redact(error.message, secrets), details, error.status);
}

function readRequestBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        reject(new GatewayError(413, `request body exceeds ${limit} bytes`, undefined, 'INVALID_ARGUMENT'));
        req.resume();
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

function modelInfo(
  name: string,
  upstream: string,
  kind: string,
  description?: string,
): Record<string, unknown> {
  return {
    name: `models/${name}`,
    baseModelId: name,
    version: '1',
    displayName: name,
    description: description ?? `Routed by the agy-sdk gateway to ${kind} model ${upstream}`,
    inputTokenLimit: 1_048_576,
    outputTokenLimit: 65_536,
    supportedGenerationMethods: ['generateContent', 'streamGenerateContent', 'countTokens'],
  };
}

class GatewayServer {
  readonly #token = createToken();
  readonly #upstream: Upstream;
  readonly #map: ModelMap;
  readonly #agents: UpstreamAgents = createAgents();
  readonly #inflight = new Set<AbortController>();
  readonly #logger: Logger;
  readonly #keepAliveMs: number;
  readonly #headersGuardMs: number;
  readonly #headersHoldMs: number;
  readonly #maxBodyBytes: number;
  /** The upstream key and every configured header value: never in what a client or the log gets. */
  readonly #secrets: readonly string[];
  readonly #options: GatewayOptions;
  readonly server: Server;

  constructor(options: GatewayOptions) {
    this.#options = options;
    this.#upstream = upstreamFor(options.upstream);
    this.#map = compileModelMap(options.modelMap);
    this.#logger = checkedLogger(options.logger);
    this.#keepAliveMs = options.keepAliveMs ?? 15_000;
    this.#headersGuardMs = options.headersGuardMs ?? 45_000;
    this.#headersHoldMs = options.headersHoldMs ?? DEFAULT_HEADERS_HOLD_MS;
    this.#maxBodyBytes = options.maxBodyBytes ?? 32 * 1024 * 1024;
    this.#secrets = [options.upstream.apiKey, ...Object.values(options.upstream.headers ?? {})];
    // Bounded like the session listener: a local process without the token cannot hold the gateway.
    const headersTimeout = options.headersTimeoutMs ?? DEFAULT_GATEWAY_HEADERS_TIMEOUT_MS;
    const idleTimeout = options.idleTimeoutMs ?? DEFAULT_GATEWAY_IDLE_TIMEOUT_MS;
    this.server = createServer(
      {
        noDelay: true,
        keepAlive: true,
        headersTimeout,
        requestTimeout:
          options.requestTimeoutMs ?? Math.max(DEFAULT_GATEWAY_REQUEST_TIMEOUT_MS, headersTimeout),
        keepAliveTimeout: idleTimeout,
        // Node checks the two timeouts above on this period (default 30 s, which would stretch them).
        connectionsCheckingInterval: Math.max(25, Math.min(1000, Math.floor(headersTimeout / 4))),
      },
      (req, res) => {
        // A request is in flight: receiving it is bounded by the request timeout, answering it by the upstream's.
        req.socket.setTimeout(0);
        this.#handle(req, res).catch((error: unknown) => {
          this.#logger.error(`gateway: unexpected failure: ${this.#redact(describeError(error))}`);
          this.#sendError(res, new GatewayError(500, 'internal gateway error'));
          if (!res.writableEnded) res.end();
        });
      },
    );
    this.server.maxConnections = options.maxConnections ?? DEFAULT_GATEWAY_MAX_CONNECTIONS;
    // Idle before the first request; Node's keep-alive timer takes over between requests.
    this.server.on('connection', (socket: Socket) => socket.setTimeout(idleTimeout));
    let drops = 0;
    this.server.on('drop', () => {
      // Once at warn level: a flood must not also flood the log.
      if (drops++ === 0) this.#logger.warn('gateway: connection limit reached; refusing connections');
    });
    this.server.on('clientError', (error: NodeJS.ErrnoException, socket) => {
      const timedOut = error.code === 'ERR_HTTP_REQUEST_TIMEOUT';
      const started = (socket as Socket & { _httpMessage?: ServerResponse })._httpMessage?.headersSent;
      if (socket.writable && !started)
        socket.end(
          timedOut
            ? 'HTTP/1.1 408 Request Timeout\r\nconnection: close\r\ncontent-length: 0\r\n\r\n'
            : 'HTTP/1.1 400 Bad Request\r\nconnection: close\r\ncontent-length: 0\r\n\r\n',
        );
      socket.destroy();
    });
  }

  #redact(text: string): string {
    return redact(text, this.#secrets);
  }

  /** Sends `error` to the client in Google's shape, secrets removed. */
  #sendError(res: ServerResponse, error: GatewayError): void {
    const clean = redactError(error, this.#secrets);
    sendJson(res, clean.code, clean.toBody());
  }

  get #upstreamIdleMs(): number {
    return this.#options.upstreamIdleTimeoutMs ?? DEFAULT_UPSTREAM_IDLE_TIMEOUT_MS;
  }

  get tokenValue(): string {
    return this.#token;
  }

  async close(): Promise<void> {
    for (const controller of this.#inflight) controller.abort();
    await new Promise<void>((resolve) => {
      this.server.close(() => resolve());
      this.server.closeAllConnections();
    });
    this.#agents.http.destroy();
    this.#agents.https.destroy();
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const route = matchRoute(req.method ?? 'GET', url);
    // The path only: `?key=` would put the token in the log.
    this.#logger.debug(`gateway: ${req.method} ${url.pathname}`);
    if (!route) {
      req.resume();
      return this.#sendError(res, new GatewayError(404, `Method ${req.method} ${url.pathname} not found`));
    }
    if (!tokenMatches(presentedKey(req, url), this.#token)) {
      req.resume();
      return this.#sendError(
        res,
        new GatewayError(401, 'API key not valid. Please pass the gateway token.', [
          {
            '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
            reason: 'API_KEY_INVALID',
            domain: 'agy-sdk.gateway',
          },
        ]),
      );
    }
    if (route.kind === 'listModels') return this.#listModels(res);
    if (route.kind === 'getModel') {
      const id = bareModelId(route.model);
      return sendJson(res, 200, modelInfo(id, this.#map.resolve(id), this.#upstream.kind));
    }
    let body: unknown;
    try {
      const raw = await readRequestBody(req, this.#maxBodyBytes);
      body = raw.length === 0 ? {} : (JSON.parse(raw.toString('utf8')) as unknown);
      if (nestsDeeperThan(body, MAX_JSON_DEPTH))
        throw new GatewayError(
          400,
          `Invalid JSON payload received: nested deeper than ${MAX_JSON_DEPTH} levels.`,
          undefined,
          'INVALID_ARGUMENT',
        );
    } catch (error) {
      return this.#sendError(
        res,
        error instanceof GatewayError ? error : new GatewayError(400, 'Invalid JSON payload received.'),
      );
    }
    try {
      if (route.kind === 'countTokens') {
        const requested = bareModelId(route.model);
        const { total, source } = await countTokens(
          this.#upstream,
          this.#options.upstream,
          this.#agents,
          parseCountTokensRequest(body),
          requested,
          this.#map.resolve(requested),
          this.#logger,
        );
        res.setHeader('x-gateway-token-count', source);
        return sendJson(res, 200, {
          totalTokens: total,
          promptTokensDetails: [{ modality: 'TEXT', tokenCount: total }],
        });
      }
      const requested = bareModelId(route.model);
      const normalized = normalizeRequest(
        parseGenerateContentRequest(body),
        requested,
        this.#map.resolve(requested),
      );
      // Chat Completions has no web search tool: refuse rather than answer without it
      // (docs/reference/gemini-clients.md#built-in-google-tools); Gemini CLI then does without the search.
      if (normalized.webSearch && this.#upstream.kind === 'openai-chat')
        throw new GatewayError(
          400,
          'tools[].googleSearch is not supported with an openai-chat upstream',
          undefined,
          'INVALID_ARGUMENT',
        );
      const sse = route.stream && route.alt === 'sse';
      await this.#generate(normalized, res, sse, route.stream);
    } catch (error) {
      if (error instanceof GatewayError) return this.#sendError(res, error);
      throw error;
    }
  }

  #listModels(res: ServerResponse): void {
    const models = this.#map.routes.map((r) =>
      r.pattern.includes('*')
        ? modelInfo(
            r.upstream,
            r.upstream,
            this.#upstream.kind,
            `Gemini ids matching '${r.pattern}' → ${r.upstream}`,
          )
        : modelInfo(r.pattern, r.upstream, this.#upstream.kind),
    );
    sendJson(res, 200, { models });
  }

  /** `sink`, with each finished request's usage also sent to `onUsage` (contained: a throw is logged). */
  #reportingUsage(sink: GeminiSink, normalized: ReturnType<typeof normalizeRequest>): GeminiSink {
    const onUsage = this.#options.onUsage;
    const logger = this.#logger;
    return {
      meta: (model, responseId) => sink.meta(model, responseId),
      text: (text, signature) => sink.text(text, signature),
      thought: (text) => sink.thought(text),
      functionCall: (call, signature) => sink.functionCall(call, signature),
      fail: (error) => sink.fail(error),
      finish: (reason, usage, grounding) => {
        sink.finish(reason, usage, grounding);
        try {
          onUsage?.({ requestedModel: normalized.requestedModel, upstreamModel: normalized.model, usage });
        } catch (error) {
          logger.error(`gateway: onUsage threw: ${describeError(error)}`);
        }
      },
      get done() {
        return sink.done;
      },
      get failed() {
        return sink.failed;
      },
    };
  }

  /** `sink`, with every error it is given cleared of the secrets (an upstream may echo its key in-stream). */
  #redactingSink(sink: GeminiSink): GeminiSink {
    return {
      meta: (model, responseId) => sink.meta(model, responseId),
      text: (text, signature) => sink.text(text, signature),
      thought: (text) => sink.thought(text),
      functionCall: (call, signature) => sink.functionCall(call, signature),
      fail: (error) => sink.fail(redactError(error, this.#secrets)),
      finish: (reason, usage, grounding) => sink.finish(reason, usage, grounding),
      get done() {
        return sink.done;
      },
      get failed() {
        return sink.failed;
      },
    };
  }

  /** `sink`, reporting the first token and the end of the request to an upstream trace. */
  #tracingSink(sink: GeminiSink, trace: UpstreamTrace): GeminiSink {
    let first = true;
    const token = (): void => {
      if (!first) return;
      first = false;
      trace.firstToken();
    };
    return {
      meta: (model, responseId) => sink.meta(model, responseId),
      text: (text, signature) => {
        token();
        sink.text(text, signature);
      },
      thought: (text) => {
        token();
        sink.thought(text);
      },
      functionCall: (call, signature) => {
        token();
        sink.functionCall(call, signature);
      },
      fail: (error) => {
        trace.end(undefined, error.message);
        sink.fail(error);
      },
      finish: (reason, usage, grounding) => {
        trace.end(usageFromGemini(usage));
        sink.finish(reason, usage, grounding);
      },
      get done() {
        return sink.done;
      },
      get failed() {
        return sink.failed;
      },
    };
  }

  async #generate(
    normalized: ReturnType<typeof normalizeRequest>,
    res: ServerResponse,
    sse: boolean,
    jsonArray: boolean,
  ): Promise<void> {
    const controller = new AbortController();
    this.#inflight.add(controller);
    res.on('close', () => {
      // The client went away before we finished: stop paying for the upstream.
      if (!res.writableFinished) controller.abort();
      this.#inflight.delete(controller);
    });
    const writer = sse ? new SseWriter(res, this.#keepAliveMs) : undefined;
    const unary = writer ? undefined : new UnarySink();
    const inner = this.#redactingSink(writer ? new StreamingSink(writer) : (unary as UnarySink));
    const reporting = this.#options.onUsage ? this.#reportingUsage(inner, normalized) : inner;
    const trace = this.#options.upstreamObserver?.start({
      requestedModel: normalized.requestedModel,
      upstreamModel: normalized.model,
      kind: this.#upstream.kind,
    });
    const sink = trace ? this.#tracingSink(reporting, trace) : reporting;
    // Headers guard: past it, 200 and keep-alives go out even while the upstream has not answered.
    if (writer && this.#headersGuardMs > 0) writer.hold(this.#headersGuardMs);
    const request = this.#upstream.buildRequest(normalized);
    // Before the 200 is out, a failure is a real HTTP status (what clients retry on); after, an in-stream error.
    const fail = (error: GatewayError): void => {
      if (writer?.committed) {
        sink.fail(error);
        return;
      }
      writer?.dispose();
      this.#sendError(res, error);
    };
    let upstreamRes: IncomingMessage;
    try {
      upstreamRes = await postJson(
        joinUrl(this.#options.upstream.baseUrl, request.path),
        { ...this.#options.upstream.headers, ...request.headers, ...trace?.headers },
        request.body,
        this.#agents,
        controller.signal,
        {
          connectMs: this.#options.upstreamConnectTimeoutMs ?? DEFAULT_UPSTREAM_CONNECT_TIMEOUT_MS,
          headersMs: this.#options.upstreamHeadersTimeoutMs ?? DEFAULT_UPSTREAM_HEADERS_TIMEOUT_MS,
        },
      );
    } catch (error) {
      trace?.end(undefined, `upstream unreachable: ${this.#redact(describeError(error))}`);
      if (controller.signal.aborted) return writer?.dispose();
      if (error instanceof UpstreamTimeoutError) {
        this.#logger.warn(`gateway: ${error.message}`);
        return fail(new GatewayError(504, error.message));
      }
      this.#logger.warn(`gateway: upstream unreachable: ${this.#redact(describeError(error))}`);
      return fail(
        new GatewayError(
          503,
          `upstream unreachable: ${(error as NodeJS.ErrnoException).code ?? 'network error'}`,
        ),
      );
    }
    const status = upstreamRes.statusCode ?? 502;
    if (status < 200 || status >= 300) {
      const text = await readBody(upstreamRes, 1 << 20, this.#upstreamIdleMs);
      const error = fromUpstreamResponse(status, text, upstreamRes.headers, [this.#options.upstream.apiKey]);
      trace?.end(undefined, `upstream answered ${status}`);
      this.#logger.warn(`gateway: upstream answered ${status}; client gets ${error.code} ${error.status}`);
      return fail(error);
    }
    // The status waits for the first chunk, briefly: an error before any content is then an HTTP status.
    writer?.hold(this.#headersHoldMs);
    const translator = this.#upstream.createTranslator(normalized, sink, (message) =>
      this.#logger.warn(`gateway: ${this.#redact(message)} (read as absent)`),
    );
    const maxEvent = this.#options.maxUpstreamEventChars ?? DEFAULT_MAX_UPSTREAM_EVENT_CHARS;
    const decoder = createSseDecoder((event, data) => translator.event(event, data), {
      maxLineChars: maxEvent,
      maxEventChars: maxEvent,
    });
    /** A failure while decoding or translating: typed upstream errors as they are, anything else a 500. */
    const translationFailed = (error: unknown): void => {
      if (error instanceof GatewayError) {
        this.#logger.warn(`gateway: ${this.#redact(error.message)}`);
        if (!sink.done) sink.fail(error);
        return;
      }
      // A translator bug must not take the process down; the client sees a retryable error.
      this.#logger.error(
        `gateway: translating the upstream stream failed: ${this.#redact(describeError(error))}`,
      );
      if (!sink.done)
        sink.fail(new GatewayError(500, 'internal gateway error while translating the upstream stream'));
    };
    await new Promise<void>((resolve) => {
      let finished = false;
      let idle: NodeJS.Timeout | undefined;
      const idleMs = this.#upstreamIdleMs;
      const finish = (broken?: string): void => {
        if (finished) return;
        finished = true;
        clearTimeout(idle);
        if (broken && !sink.done) sink.fail(prematureEnd(broken));
        else {
          try {
            decoder.end();
            translator.end();
          } catch (error) {
            translationFailed(error);
          }
        }
        resolve();
      };
      /** The upstream's silence is bounded: the gateway's own keep-alives must not hide a stall. */
      const armIdle = (): void => {
        if (idleMs <= 0) return;
        // One timer per request, restarted on each read rather than replaced.
        if (idle) {
          idle.refresh();
          return;
        }
        idle = setTimeout(() => {
          const error = new UpstreamTimeoutError('idle', idleMs);
          this.#logger.warn(`gateway: ${error.message}`);
          if (!sink.done) sink.fail(new GatewayError(504, error.message));
          upstreamRes.destroy();
          finish();
        }, idleMs);
      };
      armIdle();
      upstreamRes.setEncoding('utf8');
      upstreamRes.on('data', (chunk: string) => {
        if (sink.done) return; // draining what follows the end marker (e.g. `[DONE]`)
        armIdle();
        // The chunks this upstream read yields leave as one write (one HTTP chunk), not one per event; text is
        // not held back past the read it arrived in.
        writer?.batch();
        try {
          decoder.feed(chunk);
        } catch (error) {
          translationFailed(error);
        } finally {
          writer?.flush();
        }
        if (sink.done) {
          // Done: let the rest drain so the keep-alive connection is reused; after a failure, drop it.
          if (sink.failed) upstreamRes.destroy();
          finish();
        } else if (res.writableNeedDrain) {
          // A slow client: stop reading the upstream until our socket drains, instead of buffering without bound.
          upstreamRes.pause();
          res.once('drain', () => upstreamRes.resume());
        }
      });
      upstreamRes.on('end', () => finish());
      upstreamRes.on('aborted', () => finish('upstream connection dropped'));
      upstreamRes.on('error', () =>
        finish(controller.signal.aborted ? undefined : 'upstream connection error'),
      );
      upstreamRes.on('close', () =>
        finish(sink.done || controller.signal.aborted ? undefined : 'upstream connection closed'),
      );
    });
    if (controller.signal.aborted) {
      trace?.end(undefined, 'the client went away');
      return writer?.dispose();
    }
    if (unary) {
      try {
        const response = await unary.result;
        sendJson(res, 200, jsonArray ? [response] : response);
      } catch (error) {
        this.#sendError(
          res,
          error instanceof GatewayError ? error : new GatewayError(500, 'internal gateway error'),
        );
      }
    }
  }
}

/** Starts a gateway on 127.0.0.1. Throws `ConfigError` for bad options; leaves nothing listening on failure. */
export async function createGateway(options: GatewayOptions): Promise<Gateway> {
  validate(options);
  let gateway: GatewayServer;
  try {
    gateway = new GatewayServer(options);
  } catch (error) {
    if (error instanceof TypeError) throw new ConfigError('modelMap', error.message);
    throw error;
  }
  const { server } = gateway;
  await new Promise<void>((resolve, reject) => {
    const onError = (error: NodeJS.ErrnoException): void => {
      server.close();
      if (error.code === 'EADDRINUSE' || error.code === 'EACCES')
        reject(
          new ConfigError(
            'port',
            `127.0.0.1:${options.port ?? 0} is ${error.code === 'EADDRINUSE' ? 'already in use' : 'not allowed'} (${error.code})`,
          ),
        );
      else reject(error);
    };
    server.once('error', onError);
    server.listen(options.port ?? 0, '127.0.0.1', () => {
      server.off('error', onError);
      resolve();
    });
  });
  server.on('error', (error) =>
    checkedLogger(options.logger).error(`gateway: server error: ${describeError(error)}`),
  );
  const { port } = server.address() as AddressInfo;
  let closing: Promise<void> | undefined;
  return {
    url: `http://127.0.0.1:${port}`,
    token: gateway.tokenValue,
    close: () => {
      closing ??= gateway.close();
      return closing;
    },
  };
}
