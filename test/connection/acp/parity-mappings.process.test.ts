/**
 * The Python-parity fields on the ACP backend with the gemini-cli preset, against the scripted ACP agent through
 * the real spawn path: `apiKey`, `vertex`, `project`, `location` become Gemini CLI's environment, replace-mode
 * instructions a private `GEMINI_SYSTEM_MD` file, and `capabilities` Gemini CLI's tool settings
 * (`tools.exclude` / `tools.core`) in the shadow HOME (docs/reference/acp.md#setup, docs/reference/acp.md#tool-names).
 */
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { BuiltinTools, policy } from '../../../src/index.js';
import { type AcpSandbox, acpSandbox } from '../../helpers/acp.js';

const boxes: AcpSandbox[] = [];
afterEach(() => {
  for (const b of boxes.splice(0)) b.cleanup();
});
function box(): AcpSandbox {
  const b = acpSandbox();
  boxes.push(b);
  return b;
}

describe('Python SDK fields on Gemini CLI (ACP)', () => {
  it('apiKey, vertex, project, location, replace-mode instructions and disabledTools', async () => {
    const b = box();
    await using agent = b.agent(
      { turns: [] },
      {
        backend: { kind: 'acp', preset: 'gemini-cli' },
        isolation: 'shadow-home',
        apiKey: 'acp-key-1',
        vertex: true,
        project: 'my-project',
        location: 'europe-west4',
        systemInstructions: { mode: 'replace', text: 'You are a terse assistant.' },
        capabilities: { disabledTools: [BuiltinTools.RUN_COMMAND, BuiltinTools.EDIT_FILE] },
      },
    );
    await agent.start();
    const start = b.events().find((e) => e.event === 'start')!;
    const env = start.env as Record<string, string | undefined>;
    expect(env).toMatchObject({
      GEMINI_API_KEY: 'acp-key-1',
      GOOGLE_GENAI_USE_VERTEXAI: 'true',
      GOOGLE_CLOUD_PROJECT: 'my-project',
      GOOGLE_CLOUD_LOCATION: 'europe-west4',
    });
    const systemMd = env.GEMINI_SYSTEM_MD!;
    expect(readFileSync(systemMd, 'utf8')).toBe('You are a terse assistant.');
    expect(statSync(systemMd).mode & 0o777).toBe(0o600);
    const settings = JSON.parse(readFileSync(join(start.home as string, '.gemini', 'settings.json'), 'utf8'));
    expect(settings.security.auth.selectedType).toBe('vertex-ai');
    expect([...settings.tools.exclude].sort()).toEqual(['replace', 'run_shell_command']);
  });

  it('enabledTools becomes tools.core in Gemini CLI names', async () => {
    const b = box();
    await using agent = b.agent(
      { turns: [] },
      {
        backend: { kind: 'acp', preset: 'gemini-cli' },
        isolation: 'shadow-home',
        capabilities: { enabledTools: BuiltinTools.readOnly() },
      },
    );
    await agent.start();
    const start = b.events().find((e) => e.event === 'start')!;
    const settings = JSON.parse(readFileSync(join(start.home as string, '.gemini', 'settings.json'), 'utf8'));
    expect([...settings.tools.core].sort()).toEqual([
      'glob',
      'grep_search',
      'list_directory',
      'read_file',
      'web_fetch',
    ]);
  });

  it('explicit workspaces confine Gemini CLI write_file (its diff path) under allowAll; inside is allowed', async () => {
    const b = box();
    const write = (path: string, id: string) => ({
      type: 'tool',
      name: 'write_file',
      id,
      kind: 'edit',
      permission: { diff: { path, oldText: null, newText: 'x' } },
    });
    const outside = join(b.dir, 'outside.txt');
    await using agent = b.agent(
      {
        turns: [
          {
            actions: [
              write(outside, 'w1'),
              write(join(b.workspace, 'in.txt'), 'w2'),
              { type: 'text', text: 'done' },
            ],
          },
        ],
      },
      { policies: [policy.allowAll()] },
    );
    const result = await (await agent.chat('write')).result();
    expect(result.deniedActions).toMatchObject([{ action: 'write_file', args: { file_path: outside } }]);
    expect(result.deniedActions).toHaveLength(1);
  });
});
