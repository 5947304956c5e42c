/**
 * Explicit `workspaces` confine the built-in file tools, as the Python SDK's `LocalAgentConfig` prepends
 * `workspace_only(workspaces)` (docs/reference/design-sources.md#seed-003-the-python-sdk): each file tool's path
 * argument outside the workspaces is denied on agy's PreToolUse relay (docs/reference/hooks.md#hook-payloads;
 * argument names from agy-real/hooks-anti-samcheonpo-agy-1.3.0 and agy-real/joiomi-playbook-plugin-agy-1.3.1),
 * agy's shadow settings get `allowNonWorkspaceAccess: false` (docs/reference/plugins-and-config.md#settings), and
 * `allowOutsideWorkspaces: true` turns both off.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { policy } from '../../src/policy/index.js';
import { toolResults, useSandboxAgents } from '../helpers/agents.js';

const sb = useSandboxAgents();

/** Each built-in file tool with its path argument. */
const FILE_TOOLS: ReadonlyArray<readonly [string, string]> = [
  ['view_file', 'AbsolutePath'],
  ['write_to_file', 'TargetFile'],
  ['replace_file_content', 'TargetFile'],
  ['multi_replace_file_content', 'TargetFile'],
  ['sed_file', 'TargetFile'],
  ['list_dir', 'DirectoryPath'],
  ['find_by_name', 'SearchDirectory'],
  ['grep_search', 'SearchPath'],
  ['run_command', 'Cwd'],
];

function scenario(path: (tool: string) => string) {
  return {
    turns: [
      {
        actions: [
          ...FILE_TOOLS.map(([name, arg]) => ({
            tool: { name, parameters: { [arg]: path(name) }, output: `${name} ran` },
          })),
          { text: 'done' },
        ],
      },
    ],
  };
}

describe('workspaces confine the file tools', () => {
  it('every file tool with a path outside the workspaces is denied, even under a specific allow', async () => {
    const agent = await sb.agentWith(
      scenario(() => '/etc/hostname'),
      {
        allowOutsideWorkspaces: false,
        // A user's allow-everything (and a specific allow) cannot reopen paths outside the workspace.
        policies: [policy.allow('view_file'), policy.allowAll()],
      },
    );
    const calls = await toolResults(await agent.chat('read outside'));
    expect(calls.map((c) => c.name)).toEqual(FILE_TOOLS.map(([name]) => name));
    for (const call of calls) {
      expect(call.state, call.name).toBe('ERROR');
      expect(call.error?.message, call.name).toMatch(/workspace_only|inside/);
    }
  });

  it('the same calls inside the workspace run', async () => {
    const agent = await sb.agentWith(
      scenario((name) => (name === 'run_command' ? sb.box.workspace : join(sb.box.workspace, 'f.txt'))),
      { allowOutsideWorkspaces: false, policies: [policy.allowAll()] },
    );
    const calls = await toolResults(await agent.chat('read inside'));
    expect(calls.map((c) => [c.name, c.state])).toEqual(FILE_TOOLS.map(([name]) => [name, 'DONE']));
  });

  it('allowOutsideWorkspaces: true lets them through', async () => {
    const agent = await sb.agentWith(
      scenario(() => '/etc/hostname'),
      { allowOutsideWorkspaces: true, policies: [policy.allowAll()] },
    );
    const calls = await toolResults(await agent.chat('read outside'));
    expect(calls.every((c) => c.state === 'DONE')).toBe(true);
  });

  it("agy's shadow settings get allowNonWorkspaceAccess: false, unless opted out", async () => {
    const settingsOf = async (allowOutsideWorkspaces: boolean) => {
      const agent = await sb.agentWith(
        scenario(() => '/x'),
        {
          allowOutsideWorkspaces,
          isolation: 'shadow-home',
        },
      );
      await agent.start();
      const file = join(agent.sessionDir!, 'home/.gemini/antigravity-cli/settings.json');
      return JSON.parse(await readFile(file, 'utf8')) as Record<string, unknown>;
    };
    expect((await settingsOf(false)).allowNonWorkspaceAccess).toBe(false);
    expect((await settingsOf(true)).allowNonWorkspaceAccess).toBeUndefined();
  });
});
