/**
 * The Agent-level e2e kit: an `Agent` on the ACP backend with preset `gemini-cli`, running the real Gemini CLI
 * 0.61.0 (`node <entry> --acp` through `backend.command`/`args`) under the SDK's shadow HOME, pointed at the
 * scripted Gemini endpoint; a private workspace and data dir per agent. docs/reference/acp.md#setup.
 */
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, type AgentConfig } from '../../../src/index.js';
import type { FakeGemini, FakeGeminiRequest, FakeTurn } from '../gateway/fake-gemini.js';
import { GEMINI_CLI_ENTRY } from './harness.js';

/** A private root with a workspace and a data dir. */
export interface AgentBox {
  root: string;
  workspace: string;
  dataDir: string;
  /** An Agent on Gemini CLI over ACP against `fake`, with `extra` merged in. */
  agent(fake: FakeGemini, extra?: AgentConfig): Agent;
  cleanup(): void;
}

export function agentBox(): AgentBox {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'acp-agent-e2e-')));
  const workspace = join(root, 'ws');
  const dataDir = join(root, 'data');
  // Gemini CLI writes an error report (gemini-client-error-*.json) into its temp dir on every failed turn.
  const tmp = join(root, 'tmp');
  mkdirSync(workspace);
  mkdirSync(dataDir);
  mkdirSync(tmp);
  return {
    root,
    workspace,
    dataDir,
    agent: (fake, extra = {}) =>
      new Agent({
        backend: {
          kind: 'acp',
          preset: 'gemini-cli',
          command: process.execPath,
          args: [GEMINI_CLI_ENTRY, '--acp'],
        },
        isolation: 'shadow-home',
        workspaces: [workspace],
        dataDir,
        // A loaded 2-core box: initialize alone can take 8 s (docs/reference/acp.md#initialize).
        startTimeoutMs: 90_000,
        ...extra,
        env: { GEMINI_API_KEY: fake.apiKey, GOOGLE_GEMINI_BASE_URL: fake.url, TMPDIR: tmp, ...extra.env },
      }),
    cleanup: () => rmSync(root, { recursive: true, force: true }),
  };
}

/** The function declarations' names in a model request. */
export function declaredTools(req: FakeGeminiRequest): string[] {
  const tools = (req.body?.tools as { functionDeclarations?: { name: string }[] }[] | undefined) ?? [];
  return tools.flatMap((t) => t.functionDeclarations ?? []).map((d) => d.name);
}

/** A turn calling the one offered tool whose name ends with `_<tool>` (how Gemini CLI names MCP tools). */
export function callOwnTool(
  tool: string,
  args: Record<string, unknown>,
  id: string,
): (req: FakeGeminiRequest) => FakeTurn {
  return (req) => {
    const name = declaredTools(req).find((n) => n.startsWith('mcp_') && n.endsWith(`_${tool}`));
    if (name === undefined)
      return { chunks: [[{ text: `no ${tool} offered: ${declaredTools(req).join(',')}` }]] };
    return { chunks: [[{ functionCall: { id, name, args }, thoughtSignature: 'SIG' }]] };
  };
}
