/**
 * Gemini CLI's capability flags over ACP, a constant the package root exports: apart from `capabilities.ts`,
 * whose declarations name the ACP SDK's types (an optional peer), so the root's declarations never do.
 */
import type { AgentCapabilities } from '../../model/capabilities.js';

/**
 * Gemini CLI 0.61 over ACP (`gemini --acp`), as its `initialize` and `session/new` answers yield them
 * (checked against that answer by `test/connection/acp/units.test.ts`). A running agent reports what its own
 * `initialize` said.
 */
export const GEMINI_CLI_CAPABILITIES: Readonly<AgentCapabilities> = {
  backend: 'acp',
  agentName: 'gemini-cli',
  agentVersion: '0.61.0',
  protocolVersion: 1,
  thoughts: true,
  permissionRequests: true,
  promptImages: true,
  promptAudio: true,
  promptEmbeddedContext: true,
  loadSession: true,
  setModel: true,
  cancelKeepsProcess: true,
  mcpStdio: true,
  mcpHttp: true,
  clientFileSystem: true,
  structuredOutput: false,
  thinkingUsage: false,
};
