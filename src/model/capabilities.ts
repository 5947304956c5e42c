/**
 * What a backend can do, as one flat set of flags: `agent.capabilities` exposes them, and
 * `scripts/capability-table.mjs` renders the per-backend table in `docs/backends.md` from `CAPABILITY_ROWS` and
 * each backend's constants (`connection/agy/capabilities.ts`, `connection/acp/capabilities.ts`). This file
 * imports nothing (the docs script transpiles it on its own).
 */

/** The flags of one backend (a running agent's, or a preset's documented ones). */
export interface AgentCapabilities {
  /** Which backend: agy's stream-json, or an Agent Client Protocol agent. */
  backend: 'agy' | 'acp';
  /** The agent's own name (`agy`, or ACP `agentInfo.name`, e.g. `gemini-cli`), when known. */
  agentName: string | undefined;
  /** The agent's version, when known. */
  agentVersion: string | undefined;
  /** The ACP protocol version agreed on `initialize` (undefined on agy). */
  protocolVersion: number | undefined;
  /** Thinking text is streamed (`ChatResponse.thoughts()` yields it). */
  thoughts: boolean;
  /** The agent asks before each sensitive tool call, and the SDK's policies and `askUser` answer it. */
  permissionRequests: boolean;
  /** Images can go in the prompt natively (otherwise as files named in a text block). */
  promptImages: boolean;
  /** Audio can go in the prompt natively (otherwise as files named in a text block). */
  promptAudio: boolean;
  /** Embedded resources (documents) can go in the prompt natively. */
  promptEmbeddedContext: boolean;
  /** A conversation can be resumed by id (`conversationId`). */
  loadSession: boolean;
  /** `setModel()` works. */
  setModel: boolean;
  /** `interrupt()` keeps the process (otherwise the next turn runs in a fresh one on the same conversation). */
  cancelKeepsProcess: boolean;
  /** The user's stdio MCP servers can be passed. */
  mcpStdio: boolean;
  /** The user's Streamable HTTP MCP servers (and the SDK's own tools) can be passed. */
  mcpHttp: boolean;
  /** The agent reads and writes files through the SDK (`fs/*`), confined to the workspaces. */
  clientFileSystem: boolean;
  /** Structured output (`responseSchema`) is enforced by the backend. */
  structuredOutput: boolean;
  /** Token usage reports thinking tokens (otherwise `Usage.thinkingTokens` is `null`). */
  thinkingUsage: boolean;
}

/** One row of the capability table: a flag and what it means for the user. */
export interface CapabilityRow {
  /** The flag. */
  key: Exclude<keyof AgentCapabilities, 'backend' | 'agentName' | 'agentVersion' | 'protocolVersion'>;
  /** What it means, in a few words. */
  label: string;
}

/** The flags, in table order, with their meaning. */
export const CAPABILITY_ROWS: readonly CapabilityRow[] = [
  { key: 'thoughts', label: 'Streams thinking (`ChatResponse.thoughts()`)' },
  { key: 'permissionRequests', label: 'Per-call permission requests answered by policies / `askUser`' },
  { key: 'promptImages', label: 'Images in the prompt natively' },
  { key: 'promptAudio', label: 'Audio in the prompt natively' },
  { key: 'promptEmbeddedContext', label: 'Documents in the prompt natively (embedded resources)' },
  { key: 'loadSession', label: 'Resume by `conversationId`' },
  { key: 'setModel', label: '`setModel()`' },
  { key: 'cancelKeepsProcess', label: '`interrupt()` keeps the process' },
  { key: 'mcpStdio', label: "User's stdio MCP servers" },
  { key: 'mcpHttp', label: "User's HTTP MCP servers and the SDK's own tools over HTTP" },
  { key: 'clientFileSystem', label: 'File reads/writes served by the SDK inside the workspaces' },
  { key: 'structuredOutput', label: 'Structured output (`responseSchema`)' },
  { key: 'thinkingUsage', label: 'Thinking tokens in `usage`' },
];
