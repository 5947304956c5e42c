/**
 * What a gateway is configured with ({@link GatewayOptions}), what it reports ({@link GatewayUsageReport}),
 * what a caller holds ({@link Gateway}), and the defaults of every limit.
 */
import type { Logger } from '../logger.js';
import type { UpstreamObserver } from '../model/upstream-trace.js';
import type { UsageMetadata } from './gemini-types.js';
import type { UpstreamConfig } from './upstream/upstream.js';

/** Options of `createGateway`. */
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
/** Default keep-alive chunk interval while the upstream is silent (ms). */
export const DEFAULT_KEEP_ALIVE_MS = 15_000;
/** Default time a streaming request waits for the upstream's status before committing `200` (ms). */
export const DEFAULT_HEADERS_GUARD_MS = 45_000;
/** Default largest accepted request body (bytes): room for inline images. */
export const DEFAULT_MAX_BODY_BYTES = 32 * 1024 * 1024;
