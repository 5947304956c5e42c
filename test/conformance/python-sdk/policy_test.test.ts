/**
 * Google's `policy_test.py` on agy-sdk's public API.
 *
 * Source: github.com/lovicho/antigravity-sdk-python, google/antigravity/hooks/policy_test.py at commit
 * 63b1ebe404f731da84c20ec126851498492df279 (`google-antigravity` 0.1.14). Each test names the Python test it
 * mirrors. Differences by design are listed in docs/python-parity.md ("Where behaviour differs").
 *
 * Not applicable (14), not ported:
 * - ToPolicyConfigProtoTest (13 tests: test_empty_policies, test_static_deny, test_unnamed_policy_defaults_to_tool,
 *   test_static_allow_wildcard, test_dynamic_when_predicate, test_dynamic_ask_user, test_mcp_specific_tool,
 *   test_mcp_prefix_wildcard, test_confirm_run_command_no_handler, test_confirm_run_command_with_handler,
 *   test_rule_ordering_preserved, test_nested_policies_flattened, test_dynamic_policy_map_only_dynamic): the
 *   serialization of policies into the localharness protobuf; agy-sdk evaluates every policy in-process and
 *   sends agy none.
 * - PredicateTest.test_typed_predicate: a predicate annotated with a pydantic model receives the parsed model;
 *   TypeScript has no runtime annotations to parse against (a predicate gets the args object).
 */
import { describe, expect, it } from 'vitest';
import {
  Agent,
  BuiltinTools,
  type HookToolCall,
  type Policy,
  PolicyConfigError,
  policy,
} from '../../../src/index.js';
import { InMemoryConnection } from '../../../src/testing/index.js';
import { decide, quietLogger, toolCall } from './kit.js';

const enforce = (list: Parameters<typeof policy.enforce>[0], mcpServers?: Array<{ name: string }>) =>
  policy.enforce(list, { logger: quietLogger, ...(mcpServers === undefined ? {} : { mcpServers }) });

describe('BuilderTest (policy_test.py)', () => {
  it('BuilderTest.test_allow_creates_approve_policy (policy_test.py)', () => {
    const p = policy.allow('read_file', { name: 'allow-read' });
    expect(p.tool).toBe('read_file');
    expect(p.decision).toBe('approve');
    expect(p.when).toBeUndefined();
    expect(p.askUser).toBeUndefined();
    expect(p.name).toBe('allow-read');
  });

  it('BuilderTest.test_deny_creates_deny_policy (policy_test.py)', () => {
    const p = policy.deny('run_command', { name: 'block-cmd' });
    expect([p.tool, p.decision, p.name]).toEqual(['run_command', 'deny', 'block-cmd']);
  });

  it('BuilderTest.test_ask_user_creates_ask_user_policy (policy_test.py)', () => {
    const handler = () => true;
    const p = policy.askUser('run_command', { handler, name: 'confirm-cmd' });
    expect(p.decision).toBe('ask_user');
    expect(p.askUser).toBe(handler);
  });

  it('BuilderTest.test_ask_user_without_handler_creates_ask_user_policy (policy_test.py)', () => {
    // The handler is required by the type; JavaScript callers can still leave it out, as in Python.
    const p = policy.askUser('run_command', { name: 'confirm-cmd' } as never);
    expect([p.tool, p.decision, p.askUser, p.name]).toEqual([
      'run_command',
      'ask_user',
      undefined,
      'confirm-cmd',
    ]);
  });

  it('BuilderTest.test_ask_user_mcp_server_without_handler (policy_test.py)', () => {
    const policies = policy.askUser({ name: 'my_server' }, undefined, {} as never);
    expect(Array.isArray(policies)).toBe(true);
    expect(policies.length).toBeGreaterThan(0);
    for (const p of policies) {
      expect(p.decision).toBe('ask_user');
      expect(p.askUser).toBeUndefined();
    }
  });

  it('BuilderTest.test_deny_with_predicate (policy_test.py)', () => {
    const pred = (args: Record<string, unknown>) => String(args.CommandLine ?? '').includes('rm');
    expect(policy.deny('run_command', { when: pred }).when).toBe(pred);
  });

  it('BuilderTest.test_allow_all_creates_wildcard_approve (policy_test.py)', () => {
    const p = policy.allowAll();
    expect([p.tool, p.decision, p.name]).toEqual(['*', 'approve', 'allow_all']);
  });

  it('BuilderTest.test_deny_all_creates_wildcard_deny (policy_test.py)', () => {
    const p = policy.denyAll();
    expect([p.tool, p.decision, p.name]).toEqual(['*', 'deny', 'deny_all']);
  });
});

describe('ValidationTest (policy_test.py)', () => {
  it('ValidationTest.test_enforce_rejects_ask_user_without_handler (policy_test.py)', () => {
    const bad: Policy = { tool: 'run_command', decision: 'ask_user', name: 'oops' };
    expect(() => enforce([bad])).toThrow(PolicyConfigError);
    expect(() => enforce([bad])).toThrow(/'oops' has no handler/);
  });

  it('ValidationTest.test_enforce_rejects_ask_user_without_handler_unnamed (policy_test.py)', () => {
    expect(() => enforce([{ tool: 'my_tool', decision: 'ask_user' }])).toThrow(/my_tool/);
  });

  it('ValidationTest.test_enforce_rejects_mcp_policies_when_mcp_servers_is_none (policy_test.py)', () => {
    expect(() => enforce([policy.allow('github/create_issue')])).toThrow(PolicyConfigError);
  });

  it('ValidationTest.test_enforce_allows_mcp_policies_when_mcp_servers_is_empty_list (policy_test.py)', async () => {
    // Hub mode: the servers are known to whatever serves them, not to this process.
    const hook = enforce([policy.deny('github/create_issue')], []);
    expect(hook.kind).toBe('preToolCall');
    expect((await decide(hook, toolCall('create_issue', {}, 'github'))).allow).toBe(false);
    // An Agent with no MCP servers of its own is in hub mode too (agy's own settings may configure them).
    const conn = new InMemoryConnection();
    await using agent = new Agent({
      connection: conn.connect,
      logger: quietLogger,
      policies: [policy.deny('github/create_issue'), policy.allowAll()],
    });
    await agent.start();
    expect((await conn.host!.gateToolCall(toolCall('create_issue', {}, 'github'))).allow).toBe(false);
  });
});

describe('PriorityEvaluationTest (policy_test.py)', () => {
  it('PriorityEvaluationTest.test_specific_deny_overrides_wildcard_allow (policy_test.py)', async () => {
    const hook = enforce([policy.allow('*'), policy.deny('dangerous_tool')]);
    expect((await decide(hook, toolCall('dangerous_tool'))).allow).toBe(false);
  });

  it('PriorityEvaluationTest.test_specific_deny_overrides_specific_allow (policy_test.py)', async () => {
    const hook = enforce([policy.allow('run_command'), policy.deny('run_command')]);
    expect((await decide(hook, toolCall('run_command'))).allow).toBe(false);
  });

  it('PriorityEvaluationTest.test_specific_ask_overrides_wildcard_deny (policy_test.py)', async () => {
    const hook = enforce([policy.deny('*'), policy.askUser('run_command', { handler: () => true })]);
    expect((await decide(hook, toolCall('run_command'))).allow).toBe(true);
  });

  it('PriorityEvaluationTest.test_specific_allow_overrides_wildcard_deny (policy_test.py)', async () => {
    const hook = enforce([policy.deny('*'), policy.allow('read_file')]);
    expect((await decide(hook, toolCall('read_file'))).allow).toBe(true);
    expect((await decide(hook, toolCall('run_command'))).allow).toBe(false);
  });

  it('PriorityEvaluationTest.test_specific_mcp_allow_beats_prefix_mcp_deny (policy_test.py)', async () => {
    const mcp = { name: 'math' };
    const hook = enforce([policy.allow(mcp, ['calc']), policy.deny(mcp)], [mcp]);
    expect((await decide(hook, toolCall('calc', {}, 'math'))).allow).toBe(true);
    expect((await decide(hook, toolCall('multiply', {}, 'math'))).allow).toBe(false);
  });

  it('PriorityEvaluationTest.test_bare_tool_policy_does_not_match_mcp_tool_call (policy_test.py)', async () => {
    const mcp = { name: 'math' };
    const hook = enforce([policy.allow('calc'), policy.deny(mcp)], [mcp]);
    expect((await decide(hook, toolCall('calc', {}, 'math'))).allow).toBe(false);
  });
  it('PriorityEvaluationTest.test_workspace_only_skipped_in_process (policy_test.py)', async () => {
    // Differs by design: Python's hook skips workspace_only (its harness checks the boundary); agy has no such
    // check of its own for the SDK to rely on, so agy-sdk's policy denies the path outside the workspace itself.
    const hook = enforce(policy.workspaceOnly(['/tmp/workspace']));
    const outside = await decide(hook, toolCall('view_file', { AbsolutePath: '/any/path' }));
    expect(outside.allow).toBe(false);
    expect(outside.message).toContain('workspace_only');
  });
});

describe('ShortCircuitTest (policy_test.py)', () => {
  it('ShortCircuitTest.test_first_match_wins_within_same_priority (policy_test.py)', async () => {
    let calls = 0;
    const counting = () => {
      calls++;
      return true;
    };
    const hook = enforce([
      policy.deny('run_command', { when: counting, name: 'first' }),
      policy.deny('run_command', { when: counting, name: 'second' }),
    ]);
    expect((await decide(hook, toolCall('run_command'))).allow).toBe(false);
    expect(calls).toBe(1);
  });

  it('ShortCircuitTest.test_skips_non_matching_predicate (policy_test.py)', async () => {
    const hook = enforce([
      policy.deny('run_command', { when: () => false, name: 'skip-me' }),
      policy.deny('run_command', { when: () => true, name: 'catch-me' }),
    ]);
    const result = await decide(hook, toolCall('run_command'));
    expect(result.allow).toBe(false);
    expect(result.message).toContain('catch-me');
  });
});

describe('PredicateTest (policy_test.py)', () => {
  const startsWithRm = (args: Record<string, unknown>) => String(args.CommandLine ?? '').startsWith('rm');

  it('PredicateTest.test_sync_predicate_true (policy_test.py)', async () => {
    const hook = enforce([policy.deny('run_command', { when: startsWithRm })]);
    expect((await decide(hook, toolCall('run_command', { CommandLine: 'rm -rf /' }))).allow).toBe(false);
  });

  it('PredicateTest.test_sync_predicate_false (policy_test.py)', async () => {
    const hook = enforce([policy.deny('run_command', { when: startsWithRm })]);
    expect((await decide(hook, toolCall('run_command', { CommandLine: 'echo hi' }))).allow).toBe(true);
  });

  it('PredicateTest.test_async_predicate_true (policy_test.py)', async () => {
    const hook = enforce([
      policy.deny('run_command', { when: async (args) => String(args.CommandLine).includes('rm') }),
    ]);
    expect((await decide(hook, toolCall('run_command', { CommandLine: 'rm -rf' }))).allow).toBe(false);
  });

  it('PredicateTest.test_async_predicate_false (policy_test.py)', async () => {
    const hook = enforce([
      policy.deny('run_command', { when: async (args) => String(args.CommandLine).includes('rm') }),
    ]);
    expect((await decide(hook, toolCall('run_command', { CommandLine: 'echo' }))).allow).toBe(true);
  });

  it('PredicateTest.test_predicate_exception_matches_fail_closed (policy_test.py)', async () => {
    const hook = enforce([
      policy.deny('run_command', {
        when: () => {
          throw new Error('boom');
        },
        name: 'broken',
      }),
    ]);
    const result = await decide(hook, toolCall('run_command'));
    expect(result.allow).toBe(false);
    expect(result.message).toContain('broken');
    expect(result.message).toContain('boom');
  });

  it('PredicateTest.test_parameterless_predicate (policy_test.py)', async () => {
    const hook = enforce([policy.deny('run_command', { when: () => true, name: 'no-args' })]);
    const result = await decide(hook, toolCall('run_command'));
    expect(result.allow).toBe(false);
    // Python: "Denied by policy 'no-args'."; the SDK's reason names the policy the same way, without the dot.
    expect(result.message).toBe("Denied by policy 'no-args'");
  });

  it('PredicateTest.test_parameterless_predicate_allow (policy_test.py)', async () => {
    let allowed = false;
    const hook = enforce([
      policy.allow('run_command', { when: () => allowed, name: 'paramless-allow' }),
      policy.deny('*'),
    ]);
    expect((await decide(hook, toolCall('run_command'))).allow).toBe(false);
    allowed = true;
    expect((await decide(hook, toolCall('run_command'))).allow).toBe(true);
  });

  it('PredicateTest.test_allow_predicate_exception_denies (policy_test.py)', async () => {
    const hook = enforce([
      policy.allow('run_command', {
        when: () => {
          throw new Error('boom');
        },
        name: 'broken-allow',
      }),
      policy.allow('*'),
    ]);
    const result = await decide(hook, toolCall('run_command'));
    expect(result.allow).toBe(false);
    expect(result.message).toContain('broken-allow');
    expect(result.message).toContain('boom');
  });
});

describe('AskUserTest (policy_test.py)', () => {
  it('AskUserTest.test_handler_approve (policy_test.py)', async () => {
    const hook = enforce([policy.askUser('run_command', { handler: () => true })]);
    expect((await decide(hook, toolCall('run_command'))).allow).toBe(true);
  });

  it('AskUserTest.test_handler_deny (policy_test.py)', async () => {
    const hook = enforce([policy.askUser('run_command', { handler: () => false })]);
    const result = await decide(hook, toolCall('run_command'));
    expect(result.allow).toBe(false);
    // Python says "User denied"; the SDK's reason says the user's answer the same way.
    expect(result.message).toMatch(/denied/i);
  });

  it('AskUserTest.test_handler_async (policy_test.py)', async () => {
    const hook = enforce([
      policy.askUser('run_command', { handler: async (call) => call.args.safe === true }),
    ]);
    expect((await decide(hook, toolCall('run_command', { safe: true }))).allow).toBe(true);
    expect((await decide(hook, toolCall('run_command', { safe: false }))).allow).toBe(false);
  });

  it('AskUserTest.test_handler_exception_denies (policy_test.py)', async () => {
    const hook = enforce([
      policy.askUser('run_command', {
        handler: () => {
          throw new Error('handler broke');
        },
        name: 'broken-ask',
      }),
    ]);
    const result = await decide(hook, toolCall('run_command'));
    expect(result.allow).toBe(false);
    expect(result.message).toContain('broken-ask');
    expect(result.message).toContain('handler broke');
  });

  it('AskUserTest.test_handler_receives_tool_call (policy_test.py)', async () => {
    const received: HookToolCall[] = [];
    const hook = enforce([
      policy.askUser('run_command', {
        handler: (call) => {
          received.push(call);
          return true;
        },
      }),
    ]);
    const call = toolCall('run_command', { CommandLine: 'echo hi' });
    await decide(hook, call);
    expect(received).toHaveLength(1);
    expect(received[0]).toBe(call);
  });
});

describe('DefaultBehaviorTest (policy_test.py)', () => {
  it('DefaultBehaviorTest.test_no_matching_policy_allows (policy_test.py)', async () => {
    const hook = enforce([policy.deny('other_tool')]);
    expect((await decide(hook, toolCall('unrelated_tool'))).allow).toBe(true);
  });

  it('DefaultBehaviorTest.test_empty_policies_allows_all (policy_test.py)', async () => {
    expect((await decide(enforce([]), toolCall('any_tool'))).allow).toBe(true);
  });
});

describe('ConvenienceBuilderTest (policy_test.py)', () => {
  it('ConvenienceBuilderTest.test_allow_all_approves_any_tool (policy_test.py)', async () => {
    const hook = enforce([policy.allowAll()]);
    for (const name of ['run_command', 'view_file', 'create_file', 'unknown_tool']) {
      expect((await decide(hook, toolCall(name))).allow, name).toBe(true);
    }
  });

  it('ConvenienceBuilderTest.test_deny_all_denies_any_tool (policy_test.py)', async () => {
    const hook = enforce([policy.denyAll()]);
    for (const name of ['run_command', 'view_file', 'create_file']) {
      expect((await decide(hook, toolCall(name))).allow, name).toBe(false);
    }
  });

  it('ConvenienceBuilderTest.test_deny_all_with_specific_allow_override (policy_test.py)', async () => {
    const hook = enforce([policy.denyAll(), policy.allow('view_file')]);
    expect((await decide(hook, toolCall('view_file'))).allow).toBe(true);
    expect((await decide(hook, toolCall('run_command'))).allow).toBe(false);
  });
});

describe('DenyReasonTest (policy_test.py)', () => {
  it('DenyReasonTest.test_named_policy_in_deny_reason (policy_test.py)', async () => {
    const hook = enforce([policy.deny('run_command', { name: 'no-commands' })]);
    expect((await decide(hook, toolCall('run_command'))).message).toContain('no-commands');
  });

  it('DenyReasonTest.test_unnamed_policy_uses_tool_name (policy_test.py)', async () => {
    const hook = enforce([policy.deny('run_command')]);
    expect((await decide(hook, toolCall('run_command'))).message).toContain('run_command');
  });
});

describe('IntegrationWithHookRunnerTest (policy_test.py)', () => {
  it('IntegrationWithHookRunnerTest.test_policy_hook_in_hook_runner (policy_test.py)', async () => {
    // The hook runner here is the Agent's own: the gate every tool call the backend runs goes through.
    const conn = new InMemoryConnection();
    await using agent = new Agent({
      connection: conn.connect,
      logger: quietLogger,
      policies: [policy.deny('*'), policy.allow('read_file')],
    });
    await agent.start();
    expect((await conn.host!.gateToolCall(toolCall('read_file'))).allow).toBe(true);
    expect((await conn.host!.gateToolCall(toolCall('run_command'))).allow).toBe(false);
  });
});

describe('SafeDefaultsTest (policy_test.py)', () => {
  it('SafeDefaultsTest.test_safe_defaults_allows_read_only_tools (policy_test.py)', async () => {
    let asked = 0;
    const hook = enforce(
      policy.safeDefaults(() => {
        asked++;
        return false;
      }),
    );
    // Python's names for these are list_directory, search_directory, find_file, view_file and finish; agy's are
    // BuiltinTools' values.
    for (const name of BuiltinTools.readOnly()) {
      expect((await decide(hook, toolCall(name))).allow, name).toBe(true);
    }
    expect(asked).toBe(0);
  });

  it('SafeDefaultsTest.test_safe_defaults_asks_for_other_tools (policy_test.py)', async () => {
    let asked = false;
    const hook = enforce(
      policy.safeDefaults(() => {
        asked = true;
        return true;
      }),
    );
    expect((await decide(hook, toolCall('run_command'))).allow).toBe(true);
    expect(asked).toBe(true);
  });
});

describe('ConfirmCommandsTest (policy_test.py)', () => {
  it('ConfirmCommandsTest.test_denies_run_command_by_default (policy_test.py)', async () => {
    const result = await decide(enforce(policy.confirmRunCommand()), toolCall('run_command'));
    expect(result.allow).toBe(false);
    expect(result.message).toContain('confirm_run_command');
  });

  it('ConfirmCommandsTest.test_allows_other_tools_by_default (policy_test.py)', async () => {
    const hook = enforce(policy.confirmRunCommand());
    for (const name of Object.values(BuiltinTools).filter((v) => typeof v === 'string')) {
      if (name === BuiltinTools.RUN_COMMAND) continue;
      expect((await decide(hook, toolCall(name))).allow, name).toBe(true);
    }
  });

  it('ConfirmCommandsTest.test_with_handler_asks_user_for_run_command (policy_test.py)', async () => {
    const asked: HookToolCall[] = [];
    const hook = enforce(
      policy.confirmRunCommand((call) => {
        asked.push(call);
        return true;
      }),
    );
    expect((await decide(hook, toolCall('run_command'))).allow).toBe(true);
    expect(asked).toHaveLength(1);
  });

  it('ConfirmCommandsTest.test_with_handler_deny_propagates (policy_test.py)', async () => {
    const result = await decide(enforce(policy.confirmRunCommand(() => false)), toolCall('run_command'));
    expect(result.allow).toBe(false);
    expect(result.message).toMatch(/denied/i);
  });

  it('ConfirmCommandsTest.test_with_handler_allows_other_tools (policy_test.py)', async () => {
    const hook = enforce(policy.confirmRunCommand(() => false));
    expect((await decide(hook, toolCall('view_file'))).allow).toBe(true);
  });

  it('ConfirmCommandsTest.test_returns_list_of_policies (policy_test.py)', () => {
    for (const policies of [policy.confirmRunCommand(), policy.confirmRunCommand(() => true)]) {
      expect(Array.isArray(policies)).toBe(true);
      expect(policies.length).toBeGreaterThanOrEqual(2);
      for (const p of policies) expect(['approve', 'deny', 'ask_user']).toContain(p.decision);
    }
  });
});

describe('WorkspaceOnlyTest (policy_test.py)', () => {
  it('WorkspaceOnlyTest.test_workspace_only_returns_deny_policies_for_file_tools (policy_test.py)', () => {
    const policies = policy.workspaceOnly(['/tmp/workspace']);
    const fileTools = BuiltinTools.fileTools();
    // Python: one deny per file tool (its harness enforces the boundary). agy-sdk enforces it in-process with one
    // policy per tool it confines, which includes the file tools and agy's other path-taking tools.
    for (const tool of fileTools) expect(policies.map((p) => p.tool)).toContain(tool);
    for (const p of policies) {
      expect(p.decision).toBe('deny');
      expect(p.name).toBe('workspace_only');
    }
  });
});

describe('McpPolicyTest (policy_test.py)', () => {
  const math = { name: 'math' };
  const mathAdvanced = { name: 'math_advanced' };

  it('McpPolicyTest.test_allow_mcp_builder_wildcard (policy_test.py)', () => {
    const policies = policy.allow(math);
    expect(policies).toHaveLength(1);
    expect([policies[0]!.tool, policies[0]!.decision]).toEqual(['math/*', 'approve']);
  });

  it('McpPolicyTest.test_allow_mcp_builder_specific_tools (policy_test.py)', () => {
    const [p1, p2, ...rest] = policy.allow(math, ['calc', 'multiply']);
    expect(rest).toEqual([]);
    expect(p1!.tool).toBe('math/calc');
    expect(p2!.tool).toBe('math/multiply');
    expect(p1!.name).toBe('approve_math_calc');
  });

  it('McpPolicyTest.test_deny_mcp_builder_specific_tools (policy_test.py)', () => {
    const policies = policy.deny(math, ['calc']);
    expect(policies.map((p) => [p.tool, p.decision])).toEqual([['math/calc', 'deny']]);
  });

  it('McpPolicyTest.test_ask_user_mcp_builder_specific_tools (policy_test.py)', () => {
    const handler = () => true;
    const policies = policy.askUser(math, ['calc'], { handler });
    expect(policies).toHaveLength(1);
    expect([policies[0]!.tool, policies[0]!.decision]).toEqual(['math/calc', 'ask_user']);
    expect(policies[0]!.askUser).toBe(handler);
  });

  it('McpPolicyTest.test_builder_custom_name_unique (policy_test.py)', () => {
    expect(policy.allow(math, ['calc'], { name: 'custom' }).map((p) => p.name)).toEqual(['custom_calc']);
  });

  it('McpPolicyTest.test_builder_rejects_string_with_mcp_tools (policy_test.py)', () => {
    expect(() => (policy.allow as (...a: unknown[]) => unknown)('read_file', ['tool1'])).toThrow(
      /only accepted with an MCP server/,
    );
  });

  it('McpPolicyTest.test_mcp_tools_string_type_guard (policy_test.py)', () => {
    expect(() => policy.allow(math, 'calc' as never)).toThrow(/must be an array of names/);
  });

  it('McpPolicyTest.test_enforce_flattens_nested_policies (policy_test.py)', () => {
    const hook = enforce([policy.allow('read_file'), policy.allow(math)], [math]);
    expect(hook.kind).toBe('preToolCall');
  });

  it('McpPolicyTest.test_secure_longest_match_matching (policy_test.py)', async () => {
    const hook = enforce([policy.allow(math), policy.deny(mathAdvanced)], [math, mathAdvanced]);
    const denied = await decide(hook, toolCall('calc', {}, 'math_advanced'));
    expect(denied.allow).toBe(false);
    expect(denied.message).toContain('math_advanced_all');
    expect((await decide(hook, toolCall('calc', {}, 'math'))).allow).toBe(true);
  });

  it('McpPolicyTest.test_enforce_rejects_non_policy_in_sequence (policy_test.py)', () => {
    expect(() => enforce([policy.allow('read_file'), ['not_a_policy'] as never], [math])).toThrow(
      PolicyConfigError,
    );
  });

  it('McpPolicyTest.test_enforce_rejects_invalid_policy_type (policy_test.py)', () => {
    expect(() => enforce([policy.allow('read_file'), 123 as never], [math])).toThrow(PolicyConfigError);
  });

  it('McpPolicyTest.test_matches_target_unknown_server_prefix (policy_test.py)', async () => {
    const hook = enforce([policy.allow('math/*')], [math]);
    // A call from a server no policy names matches no `math/*` rule: no policy matched, so it is allowed.
    expect((await decide(hook, toolCall('calc', {}, 'unknown'))).allow).toBe(true);
  });
});
