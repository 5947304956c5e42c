/**
 * `BuiltinTools`, `KNOWN_BUILTIN_TOOLS` and what `capabilities` disables, with agy 1.3.1's tools
 * (docs/reference/stream-json.md#built-in-tools).
 */
import { describe, expect, it } from 'vitest';
import { validateConfig } from '../../src/agent/validate-config.js';
import { BuiltinTools, disabledBuiltinTools, KNOWN_BUILTIN_TOOLS } from '../../src/model/builtin-tools.js';
import { policy } from '../../src/policy/index.js';
import { BUILTIN_TOOL_CLASSES } from '../../src/tools/index.js';

const NEW_IN_1_3 = ['manage_task', 'schedule', 'run_workflow', 'define_subagent', 'sed_file'];

describe('BuiltinTools', () => {
  it("names agy 1.3.1's task, schedule, workflow, subagent and sed tools", () => {
    expect(BuiltinTools.MANAGE_TASK).toBe('manage_task');
    expect(BuiltinTools.SCHEDULE).toBe('schedule');
    expect(BuiltinTools.RUN_WORKFLOW).toBe('run_workflow');
    expect(BuiltinTools.DEFINE_SUBAGENT).toBe('define_subagent');
    expect(BuiltinTools.SED_FILE).toBe('sed_file');
  });

  it('knows every tool agy has listed', () => {
    for (const tool of [...NEW_IN_1_3, ...Object.keys(BUILTIN_TOOL_CLASSES)])
      expect(KNOWN_BUILTIN_TOOLS, tool).toContain(tool);
  });
});

describe('capabilities with agy 1.3.1 tools', () => {
  it('disabledTools accepts them, and agy is told to deny them', () => {
    const v = validateConfig({
      capabilities: { disabledTools: ['schedule', 'run_workflow', 'manage_task', 'browser_input'] },
      isolation: 'shadow-home',
      policies: [policy.allowAll()],
    });
    expect(v.session.settingsOverrides).toEqual({
      permissions: { deny: ['browser_input', 'manage_task', 'run_workflow', 'schedule'] },
    });
  });

  it('an unknown name is still refused, with the nearest one', () => {
    expect(() => validateConfig({ capabilities: { disabledTools: ['schedul'] } })).toThrow(
      /is not a built-in tool name \(did you mean 'schedule'\?\)/,
    );
  });

  it('enabledTools: readOnly() disables the write and agent-control tools by name', () => {
    const disabled = disabledBuiltinTools({ enabledTools: BuiltinTools.readOnly() });
    for (const tool of NEW_IN_1_3) expect(disabled, tool).toContain(tool);
    expect(disabled).not.toContain('view_file');
  });

  it("disabling EDIT_FILE disables sed_file, agy's other edit tool", () => {
    const disabled = disabledBuiltinTools({ disabledTools: [BuiltinTools.EDIT_FILE] });
    expect(disabled).toEqual(
      expect.arrayContaining(['replace_file_content', 'multi_replace_file_content', 'sed_file', 'replace']),
    );
    expect(disabled).not.toContain('write_to_file');
  });
});
