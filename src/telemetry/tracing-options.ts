/**
 * What `AgentTracing` needs from the Agent. Internal: it names `@opentelemetry/api` types, so no public
 * declaration may import it (`create-tracing.ts` resolves the API and the providers).
 */
import type { Meter, Tracer } from '@opentelemetry/api';
import type { Logger } from '../logger.js';
import type { Usage } from '../model/step.js';
import type { Otel } from './otel-api.js';

/** What `AgentTracing` needs from the Agent. */
export interface TracingOptions {
  api: Otel;
  /** Undefined when only metrics are on. */
  tracer: Tracer | undefined;
  /** Undefined when only traces are on. */
  meter: Meter | undefined;
  /** Record prompts, answers, tool arguments and results. */
  captureContent: boolean;
  /**
   * The MCP server names agy reports the agent's own tools under (bare and plugin-prefixed): their spans come
   * from the gate and the handler, not from their steps.
   */
  ownToolServers: readonly string[];
  /** `gen_ai.provider.name` of the model calls (`gcp.gemini` on agy, the upstream's in provider mode). */
  providerName: string;
  /** The model turns run on, when known. */
  model: () => string | undefined;
  /** The agent's name (`gen_ai.agent.name`). */
  agentName: string;
  /** Backend processes started so far (for the restart counter), when the backend counts them. */
  processesStarted: () => number | undefined;
  /** Prices a usage for the upstream's model (provider mode), `null` when unknown. */
  priceUpstream: (model: string, usage: Usage) => number | null;
  /** Where a telemetry failure is reported (it never reaches the turn). */
  logger: Logger;
}
