import { describe, expect, it } from 'vitest';
import { createHookToolCall } from '../../src/hooks/index.js';
import { evaluate, type Policy, PolicyConfigError, policy, READ_ONLY_TOOLS } from '../../src/policy/index.js';

const handler = async () => true;
const builtin = (name: string) => createHookToolCall({ id: '1', name, args: {} });

describe('builders for tool names', () => {
  it('allow / deny / askUser build a single policy', () => {
    const when = () => true;
    expect(policy.allow('view_file')).toEqual({ tool: 'view_file', decision: 'approve' });
    expect(policy.allow('view_file', { when, name: 'v' })).toEqual({
      tool: 'view_file',
      decision: 'approve',
      when,
      name: 'v',
    });
    expect(policy.deny('run_command', { message: 'no shell', name: 'n' })).toEqual({
      tool: 'run_command',
      decision: 'deny',
      message: 'no shell',
      name: 'n',
    });
    expect(policy.askUser('run_command', { handler, when })).toEqual({
      tool: 'run_command',
      decision: 'ask_user',
      askUser: handler,
      when,
    });
  });

  it('rejects a tool list with a plain tool name, and empty targets', () => {
    expect(() => (policy.allow as (...a: unknown[]) => unknown)('view_file', ['x'])).toThrow(
      PolicyConfigError,
    );
    expect(() => (policy.askUser as (...a: unknown[]) => unknown)('run_command', ['x'])).toThrow(
      PolicyConfigError,
    );
    expect(() => policy.deny('')).toThrow(PolicyConfigError);
  });

  it('allowAll / denyAll target *', () => {
    expect(policy.allowAll()).toEqual({ tool: '*', decision: 'approve', name: 'allow_all' });
    expect(policy.denyAll()).toEqual({ tool: '*', decision: 'deny', name: 'deny_all' });
  });
});

describe('builders for MCP servers', () => {
  const server = { name: 'github', command: 'gh-mcp' };

  it('one policy per listed tool', () => {
    expect(policy.allow(server, ['list_issues', 'get_issue'])).toEqual([
      { tool: 'github/list_issues', decision: 'approve', name: 'approve_github_list_issues' },
      { tool: 'github/get_issue', decision: 'approve', name: 'approve_github_get_issue' },
    ]);
    expect(policy.deny(server, ['delete_repo'], { name: 'no_delete', message: 'never' })).toEqual([
      { tool: 'github/delete_repo', decision: 'deny', name: 'no_delete_delete_repo', message: 'never' },
    ]);
    expect(policy.askUser(server, ['create_pr'], { handler })).toEqual([
      { tool: 'github/create_pr', decision: 'ask_user', askUser: handler, name: 'ask_user_github_create_pr' },
    ]);
  });

  it('server/* when the tools are omitted', () => {
    expect(policy.deny(server)).toEqual([{ tool: 'github/*', decision: 'deny', name: 'deny_github_all' }]);
    expect(policy.allow({ name: 'db' }, undefined, { name: 'db_ok' })).toEqual([
      { tool: 'db/*', decision: 'approve', name: 'db_ok' },
    ]);
    expect(policy.askUser({ name: 'db' }, undefined, { handler })[0]).toMatchObject({
      tool: 'db/*',
      decision: 'ask_user',
    });
  });

  it('validates server names and tool lists', () => {
    expect(() => policy.allow({ name: 'bad name' })).toThrow(PolicyConfigError);
    expect(() => policy.allow({ name: '' })).toThrow(PolicyConfigError);
    expect(() => policy.allow(server, [])).toThrow(/omit it/);
    expect(() => policy.allow(server, 'list_issues' as never)).toThrow(/array/);
    expect(() => policy.allow(server, ['a/b'])).toThrow(PolicyConfigError);
  });
});

describe('presets', () => {
  it('safeDefaults approves read-only tools and asks for everything else', async () => {
    const policies = policy.safeDefaults(handler);
    for (const tool of READ_ONLY_TOOLS)
      expect((await evaluate(policies, builtin(tool))).decision).toBe('approve');
    for (const tool of [
      'view_file',
      'list_dir',
      'find_by_name',
      'grep_search',
      'read_url_content',
      'search_web',
    ]) {
      expect(READ_ONLY_TOOLS).toContain(tool);
    }
    const write = await evaluate(policies, builtin('write_to_file'));
    expect(write.decision).toBe('ask_user');
    expect(write.policy?.askUser).toBe(handler);
    const mcp = createHookToolCall({ id: '1', name: 'query', server: 'db' });
    expect((await evaluate(policies, mcp)).decision).toBe('ask_user');
  });

  it('confirmRunCommand without a handler denies run_command and allows the rest', async () => {
    const policies = policy.confirmRunCommand();
    expect(policies.map((p: Policy) => [p.tool, p.decision])).toEqual([
      ['run_command', 'deny'],
      ['*', 'approve'],
    ]);
    expect((await evaluate(policies, builtin('run_command'))).decision).toBe('deny');
    expect((await evaluate(policies, builtin('write_to_file'))).decision).toBe('approve');
  });

  it('confirmRunCommand with a handler asks for run_command and allows the rest', async () => {
    const policies = policy.confirmRunCommand(handler);
    const result = await evaluate(policies, builtin('run_command'));
    expect(result.decision).toBe('ask_user');
    expect(result.policy?.askUser).toBe(handler);
    expect((await evaluate(policies, builtin('view_file'))).decision).toBe('approve');
  });
});
