/**
 * `capabilities` (Python `CapabilitiesConfig`) and `BuiltinTools` on agy: a disabled built-in tool never runs
 * (a deny policy on agy's PreToolUse relay, docs/reference/hooks.md#hook-payloads) and, with a shadow HOME, is
 * listed in agy's settings `permissions.deny` (docs/reference/plugins-and-config.md#settings); the model may still
 * see it. Tool names: agy 1.3.1's `init.tools` (agy-real/joiomi-playbook-plugin-agy-1.3.1).
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BuiltinTools, policy } from '../../src/index.js';
import { GEMINI_CLI_TOOL_NAMES } from '../../src/model/tool-aliases.js';
import { toolResults, useSandboxAgents } from '../helpers/agents.js';

const sb = useSandboxAgents();

const calls = (...names: string[]) => ({
  turns: [
    {
      actions: [
        ...names.map((name) => ({
          tool: { name, parameters: { AbsolutePath: '/x' }, output: `${name} ran` },
        })),
        { text: 'done' },
      ],
    },
  ],
});

describe('BuiltinTools', () => {
  it("are agy's names, with the Python SDK's groups", () => {
    expect(BuiltinTools.RUN_COMMAND).toBe('run_command');
    expect(BuiltinTools.readOnly()).toEqual([
      'list_dir',
      'grep_search',
      'find_by_name',
      'view_file',
      'read_url_content',
      'finish',
    ]);
    expect(BuiltinTools.fileTools()).toEqual(['view_file', 'write_to_file', 'replace_file_content']);
    // Each has its Gemini CLI name in the one alias table where Gemini CLI has the tool.
    expect(GEMINI_CLI_TOOL_NAMES[BuiltinTools.VIEW_FILE]).toBe('read_file');
  });
});

describe('capabilities on agy', () => {
  it('disabledTools: the tool never runs, even under allowAll; others do', async () => {
    const agent = await sb.agentWith(calls('run_command', 'view_file'), {
      capabilities: { disabledTools: [BuiltinTools.RUN_COMMAND] },
      policies: [policy.allowAll()],
    });
    const done = await toolResults(await agent.chat('go'));
    expect(done.map((c) => [c.name, c.state])).toEqual([
      ['run_command', 'ERROR'],
      ['view_file', 'DONE'],
    ]);
    expect(done[0]?.error?.message).toContain('disabled by capabilities');
  });

  it('disabledTools by their Gemini CLI name disable the agy tool too', async () => {
    const agent = await sb.agentWith(calls('view_file'), {
      capabilities: { disabledTools: ['read_file'] },
      policies: [policy.allowAll()],
    });
    const [call] = await toolResults(await agent.chat('go'));
    expect(call?.state).toBe('ERROR');
  });

  it('enabledTools: only those run (unknown built-ins included in the denial)', async () => {
    const agent = await sb.agentWith(calls('view_file', 'write_to_file', 'browser_click_element'), {
      capabilities: { enabledTools: BuiltinTools.readOnly() },
      policies: [policy.allowAll()],
    });
    const done = await toolResults(await agent.chat('go'));
    expect(done.map((c) => [c.name, c.state])).toEqual([
      ['view_file', 'DONE'],
      ['write_to_file', 'ERROR'],
      ['browser_click_element', 'ERROR'],
    ]);
  });

  it("enableSubagents: false disables agy's subagent tools", async () => {
    const agent = await sb.agentWith(calls('invoke_subagent'), {
      capabilities: { enableSubagents: false },
      policies: [policy.allowAll()],
    });
    const [call] = await toolResults(await agent.chat('go'));
    expect(call?.state).toBe('ERROR');
  });

  it("with a shadow HOME the disabled tools are in agy's permissions.deny", async () => {
    const agent = await sb.agentWith(calls(), {
      capabilities: { disabledTools: [BuiltinTools.RUN_COMMAND, BuiltinTools.EDIT_FILE] },
      isolation: 'shadow-home',
      settingsOverrides: { permissions: { deny: ['command(git)'] } },
    });
    await agent.start();
    const settings = JSON.parse(
      await readFile(join(agent.sessionDir!, 'home/.gemini/antigravity-cli/settings.json'), 'utf8'),
    ) as { permissions: { deny: string[] } };
    expect(settings.permissions.deny).toEqual(
      expect.arrayContaining([
        'run_command',
        'replace_file_content',
        'multi_replace_file_content',
        'command(git)',
      ]),
    );
    // Gemini CLI's names are not agy's: they stay out of agy's settings.
    expect(settings.permissions.deny).not.toContain('run_shell_command');
  });
});
