/**
 * `agy-sdk/gateway`: a Gemini-compatible endpoint in front of OpenAI Chat, OpenAI Responses or Anthropic, so
 * agy (or Gemini CLI, or any `@google/genai` client) can run on another provider. Usable without an Agent.
 */

// Provider mode: an Agent on another provider through the gateway (`AgentConfig.provider`, whose usage is
// `TurnResult.providerUsage`).
export type { ProviderUsage } from '../model/usage.js';
export type { GoogleErrorBody, GoogleErrorDetail } from './errors.js';
export { createGateway } from './gateway.js';
export type { UsageMetadata } from './gemini-types.js';
export type { Gateway, GatewayOptions, GatewayUsageReport } from './options.js';
export {
  type ProviderBridge,
  type ProviderConfig,
  startProviderBridge,
  validateProvider,
} from './provider-bridge.js';
export type { UpstreamConfig, UpstreamKind } from './upstream/upstream.js';
