/**
 * `agent.registerHook()` / `agent.registerTrigger()` (Python `register_hook` / `register_trigger`,
 * docs/reference/design-sources.md#seed-003-the-python-sdk): before start() they join the config, after it a hook
 * applies from the next call and a trigger starts at once; each returns its remover.
 */
import { describe, expect, it } from 'vitest';
import { UnsupportedError } from '../../src/connection/index.js';
import { Agent, BuiltinTools, hooks } from '../../src/index.js';
import { InMemoryConnection } from '../../src/testing/index.js';
import type { TriggerContext } from '../../src/triggers/types.js';
import { useSandboxAgents } from '../helpers/agents.js';

const text = (t: string) => ({ steps: [{ type: 'agent_response' as const, textDelta: t }] });

describe('registerHook', () => {
  it('before start it joins the config; its remover takes it out for the next turn', async () => {
    const conn = new InMemoryConnection({ turns: [text('one'), text('two')] });
    await using agent = new Agent({ connection: conn.connect });
    const remove = agent.registerHook(hooks.preTurn(() => ({ allow: false, message: 'no turns today' })));
    expect((await (await agent.chat('a')).result()).status).toBe('denied');
    remove();
    expect(await (await agent.chat('b')).text()).toBe('one');
    expect(conn.requests.map((r) => r.text)).toEqual([['b']]);
  });

  it('after start it applies from the next turn', async () => {
    const conn = new InMemoryConnection({ turns: [text('first'), text('second')] });
    await using agent = new Agent({ connection: conn.connect });
    await (await agent.chat('a')).result();
    const seen: string[] = [];
    const remove = agent.registerHook(hooks.postTurn((t) => void seen.push(t)));
    await (await agent.chat('b')).result();
    remove();
    expect(seen).toEqual(['second']);
  });
});

describe('registerTrigger', () => {
  function messenger(message: string) {
    const state = { stopped: false };
    const trigger = async (ctx: TriggerContext, signal: AbortSignal) => {
      await ctx.send(message);
      await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
      state.stopped = true;
    };
    return { trigger, state };
  }

  it('after start it starts at once; the remover stops it', async () => {
    const conn = new InMemoryConnection({ turns: [text('from trigger')] });
    await using agent = new Agent({ connection: conn.connect });
    await agent.start();
    const { trigger, state } = messenger('wake up');
    const remove = agent.registerTrigger(trigger);
    await expect.poll(() => conn.requests.length, { timeout: 30_000 }).toBe(1);
    expect(conn.requests[0]?.text).toEqual(['wake up']);
    await remove();
    expect(state.stopped).toBe(true);
  });

  it('before start it starts with the agent and stops on close', async () => {
    const conn = new InMemoryConnection({ turns: [text('ok')] });
    const agent = new Agent({ connection: conn.connect });
    const { trigger, state } = messenger('started');
    agent.registerTrigger(trigger);
    expect(conn.requests).toHaveLength(0);
    await agent.start();
    await expect.poll(() => conn.requests.length, { timeout: 30_000 }).toBe(1);
    await agent.close();
    expect(state.stopped).toBe(true);
  });

  it('a non-trigger is refused at once', () => {
    const agent = new Agent({ connection: new InMemoryConnection().connect });
    expect(() => agent.registerTrigger(42 as never)).toThrow(TypeError);
  });
});

describe('registerHook on agy after start', () => {
  const sb = useSandboxAgents();
  it('a hook whose relay agy was not started with is refused, not silently never called', async () => {
    // No policy needs a read-only agent (the safety guard); its capabilities are denials, so PreToolUse is
    // always installed and a preToolCall hook added later is reached. A stop hook is not.
    const agent = await sb.agentWith(
      { turns: [] },
      { policies: [], capabilities: { enabledTools: BuiltinTools.readOnly() } },
    );
    await agent.start();
    expect(() => agent.registerHook(hooks.stop(() => undefined))).toThrow(UnsupportedError);
    expect(() => agent.registerHook(hooks.preToolCall(() => true))).not.toThrow();
    // preTurn runs in the SDK: always fine.
    expect(() => agent.registerHook(hooks.preTurn(() => true))).not.toThrow();
  });
});
