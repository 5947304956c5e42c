/** The agy backend's capability flags (`agent.capabilities`, the table in docs/backends.md). */
import type { AgentCapabilities } from '../../model/capabilities.js';

/** agy over stream-json: fixed, whatever the agy version. */
export const AGY_CAPABILITIES: Readonly<AgentCapabilities> = {
  backend: 'agy',
  agentName: 'agy',
  agentVersion: undefined,
  protocolVersion: undefined,
  thoughts: false,
  permissionRequests: false,
  promptImages: false,
  promptAudio: false,
  promptEmbeddedContext: false,
  loadSession: true,
  setModel: true,
  cancelKeepsProcess: false,
  mcpStdio: true,
  mcpHttp: true,
  clientFileSystem: false,
  structuredOutput: true,
  thinkingUsage: true,
};
