/**
 * The agent's `initialize` and `session/new` answers → the SDK's capability flags (`agent.capabilities`).
 * Gemini CLI advertises session models outside stable v1 (`models` on the `session/new` answer, switched with
 * the unstable `session/set_model`); that is what `setModel` means here.
 */
import type { AgentCapabilities } from '../../model/capabilities.js';
import type { AcpInitializeResponse } from '../../protocol/acp.js';

/** Whether a `session/new` (or `session/load`) answer lists models the client may switch between. */
export function advertisesModels(session: object | undefined): boolean {
  const models = (session as { models?: unknown } | undefined)?.models;
  if (typeof models !== 'object' || models === null) return false;
  const available = (models as { availableModels?: unknown }).availableModels;
  return Array.isArray(available) && available.length > 0;
}

/** The flags of an ACP agent, from what it advertised. */
export function capabilitiesOf(init: AcpInitializeResponse, session: object | undefined): AgentCapabilities {
  const caps = init.agentCapabilities ?? {};
  const prompt = caps.promptCapabilities ?? {};
  return {
    backend: 'acp',
    agentName: init.agentInfo?.name ?? undefined,
    agentVersion: init.agentInfo?.version ?? undefined,
    protocolVersion: init.protocolVersion,
    // ACP has one thought channel (agent_thought_chunk) every agent may use; the backend always reads it.
    thoughts: true,
    permissionRequests: true,
    promptImages: prompt.image === true,
    promptAudio: prompt.audio === true,
    promptEmbeddedContext: prompt.embeddedContext === true,
    loadSession: caps.loadSession === true,
    setModel: advertisesModels(session),
    cancelKeepsProcess: true,
    // Every ACP agent must take stdio MCP servers; HTTP ones only when advertised.
    mcpStdio: true,
    mcpHttp: caps.mcpCapabilities?.http === true,
    clientFileSystem: true,
    structuredOutput: false,
    thinkingUsage: false,
  };
}
