/**
 * What the gateway tells an observer of each upstream request it makes (the Agent's telemetry in provider mode):
 * defined here, below both, so the gateway pushes into telemetry without telemetry importing the gateway. The
 * usage is already the SDK's `Usage` (the gateway translates its upstream's counts).
 */
import type { Usage } from './step.js';

/** The upstream protocols the gateway speaks. */
export type UpstreamKind = 'openai-chat' | 'openai-responses' | 'anthropic';

/** What the gateway says of an upstream request when it starts. */
export interface UpstreamRequest {
  /** The Gemini model id the client asked for. */
  requestedModel: string;
  /** The upstream model the request goes to (after the model map). */
  upstreamModel: string;
  /** The upstream's protocol. */
  kind: UpstreamKind;
}

/** Observes upstream requests (the Agent's telemetry in provider mode; not exported from `agy-sdk/gateway`). */
export interface UpstreamObserver {
  /** A request is about to go upstream; the returned trace follows it. */
  start(request: UpstreamRequest): UpstreamTrace;
}

/** One upstream request being observed. */
export interface UpstreamTrace {
  /** Headers to send upstream with the request (trace context). */
  readonly headers: Readonly<Record<string, string>>;
  /** The first text, thought or call arrived. */
  firstToken(): void;
  /** The request ended: with its usage when it finished, with an error message when it failed. */
  end(usage: Usage | undefined, error?: string): void;
}
