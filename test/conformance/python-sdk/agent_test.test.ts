/**
 * Google's `agent_test.py` on agy-sdk's public API. Python patches its connection strategy and reads the
 * arguments it was built with; here an Agent runs on the in-memory connection of `agy-sdk/testing` and the
 * tests read what it did (requests sent, hooks and triggers run, the tool gate's verdicts, config errors).
 *
 * Source: github.com/lovicho/antigravity-sdk-python, google/antigravity/agent_test.py at commit
 * 63b1ebe404f731da84c20ec126851498492df279 (`google-antigravity` 0.1.14). Differences by design:
 * docs/python-parity.md ("Where behaviour differs").
 *
 * Not applicable (15), not ported:
 * - What the config turns into on the backend's command line and settings, which Python reads off its mocked
 *   strategy: test_agent_api_key_env, test_agent_model_sugar_flows_to_strategy,
 *   test_agent_with_system_instructions_object, test_agent_with_session_config, test_agent_with_skills_paths,
 *   test_agent_with_response_schema, AgentConfigTest.test_sugar_model_flows_to_models,
 *   test_sugar_api_key_flows_to_models, test_model_sugar_does_not_clobber_image_generation (9). agy-sdk's are
 *   checked against the simulator where the launch happens (test/agent/*.process.test.ts,
 *   test/connection/agy/).
 * - Subagents with their own Python callables as tools (test_agent_collects_subagent_custom_tools_into_tool_runner,
 *   test_agent_config_get_all_custom_tools_guards_none_and_deduplicates,
 *   test_agent_config_get_all_custom_tools_raises_on_name_collision: 3): agy's subagents are defined in files
 *   and use the agent's MCP tools; there is no per-subagent tool list.
 * - test_agent_aexit_passes_exceptions, test_agent_aexit_returns_suppression_status (2): Python's `__aexit__`
 *   and its exit stack; `await using` has no exception to pass or suppress.
 * - test_agent_default_capabilities (1): the `CapabilitiesConfig` object handed to the strategy; the observable
 *   default (no tool disabled) is ported in types_test's CapabilitiesConfigTest.test_default_construction.
 */
import { describe, expect, it } from 'vitest';
import {
  Agent,
  BuiltinTools,
  ConfigError,
  ContentError,
  hooks,
  Image,
  PreTurnHook,
  policy,
  type TriggerContext,
} from '../../../src/index.js';
import { InMemoryConnection, type ScriptedTurn } from '../../../src/testing/index.js';
import { mediaConnections, quietLogger, toolCall } from './kit.js';

const mediaConnection = mediaConnections();
const answer = (textDelta: string): ScriptedTurn => ({ steps: [{ type: 'agent_response', textDelta }] });

describe('AgentTest (agent_test.py)', () => {
  it('AgentTest.test_agent_lifecycle (agent_test.py)', async () => {
    const conn = new InMemoryConnection();
    const agent = new Agent({ connection: conn.connect, logger: quietLogger });
    await agent.start();
    expect(agent.conversation).toBeDefined();
    await agent.close();
    expect(conn.closed).toBe(true);
  });

  it('AgentTest.test_agent_chat (agent_test.py)', async () => {
    const conn = new InMemoryConnection({ turns: [answer('Hello back')] });
    await using agent = new Agent({ connection: conn.connect, logger: quietLogger });
    expect(await (await agent.chat('Hello')).text()).toBe('Hello back');
    expect(conn.requests.map((r) => r.text)).toEqual([['Hello']]);
  });

  it('AgentTest.test_agent_chat_multimodal_input (agent_test.py)', async () => {
    const conn = mediaConnection({ turns: [answer('Analyzed image content')] });
    await using agent = new Agent({ connection: conn.connect, logger: quietLogger });
    const image = new Image({ mimeType: 'image/png', data: new TextEncoder().encode('png_bytes') });
    expect(await (await agent.chat(['Look at this:', image])).text()).toBe('Analyzed image content');
    expect(conn.requests[0]!.text.join('\n')).toContain('Look at this:');
    expect(conn.requests[0]!.media?.map((m) => m.mimeType)).toEqual(['image/png']);
  });

  it('AgentTest.test_agent_chat_empty_input_raises_value_error (agent_test.py)', async () => {
    const conn = new InMemoryConnection();
    await using agent = new Agent({ connection: conn.connect, logger: quietLogger });
    for (const empty of [null, '', '   ', [], ['', '   ']]) {
      await expect(agent.chat(empty as never), JSON.stringify(empty)).rejects.toThrow(ContentError);
    }
    expect(conn.requests).toEqual([]);
  });

  it('AgentTest.test_agent_register_hook (agent_test.py)', async () => {
    let ran = false;
    class MyPreTurnHook extends PreTurnHook {
      run() {
        ran = true;
        return { allow: true };
      }
    }
    const conn = new InMemoryConnection({ turns: [answer('ok')] });
    await using agent = new Agent({
      connection: conn.connect,
      logger: quietLogger,
      hooks: [new MyPreTurnHook()],
    });
    await (await agent.chat('q')).result();
    expect(ran).toBe(true);
  });

  it('AgentTest.test_agent_register_trigger (agent_test.py)', async () => {
    const events: string[] = [];
    const agent = new Agent({
      connection: new InMemoryConnection().connect,
      logger: quietLogger,
      triggers: [
        async function myTrigger(_ctx: TriggerContext, signal: AbortSignal) {
          events.push('started');
          await new Promise<void>((resolve) =>
            signal.addEventListener('abort', () => resolve(), { once: true }),
          );
          events.push('stopped');
        },
      ],
    });
    await agent.start();
    expect(events).toEqual(['started']);
    await agent.close();
    expect(events).toEqual(['started', 'stopped']);
  });

  it('AgentTest.test_agent_write_mode_with_policies (agent_test.py)', async () => {
    const conn = new InMemoryConnection();
    await using agent = new Agent({
      connection: conn.connect,
      logger: quietLogger,
      capabilities: {},
      policies: [policy.allow('some_tool')],
    });
    await agent.start();
    // Write tools stay on: the policies decide (no policy matches run_command, so it runs).
    expect((await conn.host!.gateToolCall(toolCall('run_command'))).allow).toBe(true);
  });

  it('AgentTest.test_agent_mcp_server_unknown_type (agent_test.py)', () => {
    expect(
      () =>
        new Agent({
          logger: quietLogger,
          mcpServers: { x: { type: 'unknown_type' } as never },
          policies: [policy.allowAll()],
        }),
    ).toThrow(ConfigError);
  });

  it('AgentTest.test_agent_chat_before_start (agent_test.py)', async () => {
    // Differs by design: `chat` starts the agent when it was not started (Python raises RuntimeError).
    const conn = new InMemoryConnection({ turns: [answer('hi')] });
    await using agent = new Agent({ connection: conn.connect, logger: quietLogger });
    expect(await (await agent.chat('hello')).text()).toBe('hi');
    expect(agent.isStarted).toBe(true);
  });

  it('AgentTest.test_agent_conversation_before_start (agent_test.py)', () => {
    const agent = new Agent({ connection: new InMemoryConnection().connect, logger: quietLogger });
    expect(() => agent.conversation).toThrow();
  });

  it('AgentTest.test_agent_is_started_before_start (agent_test.py)', () => {
    expect(new Agent({ connection: new InMemoryConnection().connect }).isStarted).toBe(false);
  });

  it('AgentTest.test_agent_is_started_after_start (agent_test.py)', async () => {
    await using agent = new Agent({ connection: new InMemoryConnection().connect, logger: quietLogger });
    await agent.start();
    expect(agent.isStarted).toBe(true);
  });

  it('AgentTest.test_agent_conversation_after_start (agent_test.py)', async () => {
    await using agent = new Agent({ connection: new InMemoryConnection().connect, logger: quietLogger });
    await agent.start();
    expect(agent.conversation.conversationId).toBe('mem-conversation');
  });
});

describe('AgentTest policy guard (agent_test.py)', () => {
  const mcpServers = { test_server: { command: 'node', args: ['index.js'] } };

  const refused = (config: ConstructorParameters<typeof Agent>[0]) => () =>
    new Agent({ connection: new InMemoryConnection().connect, logger: quietLogger, ...config });

  it('AgentTest.test_agent_requires_policies_in_write_mode (agent_test.py)', () => {
    expect(refused({ capabilities: {}, policies: [] })).toThrow(ConfigError);
    expect(refused({ capabilities: {}, policies: [] })).toThrow(
      /write tools or MCP servers are enabled without/i,
    );
  });

  it('AgentTest.test_policy_guard_explicit_write_tool (agent_test.py)', () => {
    expect(refused({ capabilities: { enabledTools: [BuiltinTools.RUN_COMMAND] }, policies: [] })).toThrow(
      ConfigError,
    );
  });

  it('AgentTest.test_policy_guard_explicit_all_tools (agent_test.py)', () => {
    expect(refused({ capabilities: { enabledTools: BuiltinTools.allTools() }, policies: [] })).toThrow(
      ConfigError,
    );
  });

  it('AgentTest.test_policy_guard_empty_disabled_tools (agent_test.py)', () => {
    expect(refused({ capabilities: { disabledTools: [] }, policies: [] })).toThrow(ConfigError);
  });

  it('AgentTest.test_policy_guard_read_only_explicit_passes (agent_test.py)', () => {
    expect(
      () =>
        new Agent({
          connection: new InMemoryConnection().connect,
          capabilities: { enabledTools: BuiltinTools.readOnly() },
          policies: [],
        }),
    ).not.toThrow();
  });

  it('AgentTest.test_policy_guard_write_tools_with_policy_passes (agent_test.py)', () => {
    expect(
      () =>
        new Agent({
          connection: new InMemoryConnection().connect,
          capabilities: {},
          policies: [policy.deny('*')],
        }),
    ).not.toThrow();
  });

  it('AgentTest.test_policy_guard_mcp_server_requires_policies_or_hook (agent_test.py)', () => {
    expect(() => new Agent({ logger: quietLogger, mcpServers, policies: [] })).toThrow(ConfigError);
  });

  it('AgentTest.test_policy_guard_mcp_server_with_policy_passes (agent_test.py)', () => {
    expect(() => new Agent({ logger: quietLogger, mcpServers, policies: [policy.deny('*')] })).not.toThrow();
  });

  it('AgentTest.test_policy_guard_mcp_server_with_hook_passes (agent_test.py)', () => {
    expect(
      () =>
        new Agent({ logger: quietLogger, mcpServers, hooks: [hooks.preToolCall(() => ({ allow: true }))] }),
    ).not.toThrow();
  });
});

describe('AgentConfigTest (agent_test.py)', () => {
  it('AgentConfigTest.test_defaults (agent_test.py)', async () => {
    // The default policies are confirm_run_command's: run_command denied, everything else allowed.
    const conn = new InMemoryConnection();
    await using agent = new Agent({ connection: conn.connect, logger: quietLogger });
    await agent.start();
    const denied = await conn.host!.gateToolCall(toolCall('run_command'));
    expect(denied.allow).toBe(false);
    expect(denied.allow ? '' : denied.reason).toContain('confirm_run_command');
    expect((await conn.host!.gateToolCall(toolCall('view_file'))).allow).toBe(true);
  });

  it('AgentConfigTest.test_conversation_id_returns_none_before_session (agent_test.py)', () => {
    expect(new Agent({ connection: new InMemoryConnection().connect }).conversationId).toBeUndefined();
  });

  it('AgentConfigTest.test_conversation_id_returns_value_after_session (agent_test.py)', async () => {
    const conn = new InMemoryConnection({ conversationId: 'test-conv-123' });
    await using agent = new Agent({ connection: conn.connect, logger: quietLogger });
    await agent.start();
    expect(agent.conversationId).toBe('test-conv-123');
  });
});
