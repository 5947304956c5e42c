/**
 * `agy-sdk/gateway`: a Gemini-compatible endpoint in front of OpenAI Chat, OpenAI Responses or Anthropic, so
 * agy (or Gemini CLI, or any `@google/genai` client) can run on another provider. Usable without an Agent.
 */

export type { GoogleErrorBody, GoogleErrorDetail } from './errors.js';
export { createGateway, type Gateway, type GatewayOptions, type GatewayUsageReport } from './gateway.js';
export type { UsageMetadata } from './gemini-types.js';
// Provider mode. Its config and usage types (`ProviderConfig`, `ProviderUsage`) are the Agent's
// (`AgentConfig.provider`, `TurnResult.providerUsage`) and exported once, from the root.
export { type ProviderBridge, startProviderBridge, validateProvider } from './provider-bridge.js';
export type { UpstreamConfig, UpstreamKind } from './upstream/upstream.js';
