/**
 * What handling one request needs of the running gateway, resolved once when it starts: the upstream, the
 * model map, the connection pools, the logger, the secrets and every limit with its default applied.
 */
import type { ServerResponse } from 'node:http';
import { checkedLogger, type Logger } from '../logger.js';
import { type GatewayError, redact, redactError } from './errors.js';
import { sendJson } from './json-response.js';
import { compileModelMap, type ModelMap } from './model-map.js';
import {
  DEFAULT_HEADERS_GUARD_MS,
  DEFAULT_HEADERS_HOLD_MS,
  DEFAULT_KEEP_ALIVE_MS,
  DEFAULT_MAX_BODY_BYTES,
  DEFAULT_UPSTREAM_CONNECT_TIMEOUT_MS,
  DEFAULT_UPSTREAM_HEADERS_TIMEOUT_MS,
  DEFAULT_UPSTREAM_IDLE_TIMEOUT_MS,
  type GatewayOptions,
} from './options.js';
import { anthropicUpstream } from './upstream/anthropic.js';
import { createAgents, type UpstreamAgents, type UpstreamTimeouts } from './upstream/http-client.js';
import { openAIChatUpstream } from './upstream/openai-chat.js';
import { openAIResponsesUpstream } from './upstream/openai-responses.js';
import { DEFAULT_MAX_UPSTREAM_EVENT_CHARS } from './upstream/sse-parse.js';
import type { Upstream, UpstreamConfig } from './upstream/upstream.js';

/** A running gateway's shared state and settings, as each request handler reads them. */
export interface GatewayContext {
  /** The options the gateway was created with (validated). */
  readonly options: GatewayOptions;
  /** The per-run key clients must present. */
  readonly token: string;
  /** The upstream's request builder and stream translator. */
  readonly upstream: Upstream;
  /** Gemini model id → upstream model. */
  readonly map: ModelMap;
  /** Keep-alive connection pools to the upstream. */
  readonly agents: UpstreamAgents;
  /** The abort controllers of the generate requests in flight (aborted on close). */
  readonly inflight: Set<AbortController>;
  /** Where diagnostics go. */
  readonly logger: Logger;
  /** The upstream key and every configured header value: never in what a client or the log gets. */
  readonly secrets: readonly string[];
  /** Keep-alive chunk interval (ms; 0: none). */
  readonly keepAliveMs: number;
  /** How long a stream waits for the upstream's status before committing `200` (ms; 0: no limit). */
  readonly headersGuardMs: number;
  /** How long a stream holds its status for the first chunk after the upstream's `200` (ms). */
  readonly headersHoldMs: number;
  /** Largest accepted request body (bytes). */
  readonly maxBodyBytes: number;
  /** Upstream connect and headers timeouts. */
  readonly upstreamTimeouts: UpstreamTimeouts;
  /** Longest silence of a streaming upstream body (ms; 0: none). */
  readonly upstreamIdleMs: number;
  /** Longest upstream SSE line or event (characters). */
  readonly maxUpstreamEventChars: number;
}

/** Resolves `options` (already validated) into a context; `compileModelMap` may throw `TypeError`. */
export function createGatewayContext(options: GatewayOptions, token: string): GatewayContext {
  return {
    options,
    token,
    upstream: upstreamFor(options.upstream),
    map: compileModelMap(options.modelMap),
    agents: createAgents(),
    inflight: new Set(),
    logger: checkedLogger(options.logger),
    secrets: [options.upstream.apiKey, ...Object.values(options.upstream.headers ?? {})],
    keepAliveMs: options.keepAliveMs ?? DEFAULT_KEEP_ALIVE_MS,
    headersGuardMs: options.headersGuardMs ?? DEFAULT_HEADERS_GUARD_MS,
    headersHoldMs: options.headersHoldMs ?? DEFAULT_HEADERS_HOLD_MS,
    maxBodyBytes: options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES,
    upstreamTimeouts: {
      connectMs: options.upstreamConnectTimeoutMs ?? DEFAULT_UPSTREAM_CONNECT_TIMEOUT_MS,
      headersMs: options.upstreamHeadersTimeoutMs ?? DEFAULT_UPSTREAM_HEADERS_TIMEOUT_MS,
    },
    upstreamIdleMs: options.upstreamIdleTimeoutMs ?? DEFAULT_UPSTREAM_IDLE_TIMEOUT_MS,
    maxUpstreamEventChars: options.maxUpstreamEventChars ?? DEFAULT_MAX_UPSTREAM_EVENT_CHARS,
  };
}

function upstreamFor(config: UpstreamConfig): Upstream {
  if (config.kind === 'openai-chat') return openAIChatUpstream(config);
  if (config.kind === 'openai-responses') return openAIResponsesUpstream(config);
  return anthropicUpstream(config);
}

/** `text` with the context's secrets removed: for the log. */
export function redactText(ctx: GatewayContext, text: string): string {
  return redact(text, ctx.secrets);
}

/** Sends `error` to the client in Google's shape, secrets removed. */
export function sendError(ctx: GatewayContext, res: ServerResponse, error: GatewayError): void {
  const clean = redactError(error, ctx.secrets);
  sendJson(res, clean.code, clean.toBody());
}
