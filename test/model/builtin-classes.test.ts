/**
 * agy 1.3.1's built-in tools, each with a class (docs/reference/stream-json.md#built-in-tools): the list is read
 * from the captures (agy-real/littlebearapps-untether-agy-1.3.1/ok.script, the same in
 * agy-real/joiomi-playbook-plugin-agy-1.3.1), so a tool a new capture adds fails here until it is classed.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, type TestContext } from 'vitest';
import { createHookToolCall } from '../../src/hooks/index.js';
import { evaluate, READ_ONLY_TOOLS, safeDefaults } from '../../src/policy/index.js';
import {
  TOOLS_1_1_8,
  TOOLS_1_1_9,
  TOOLS_1_2_7,
  TOOLS_1_3_1,
} from '../../src/testing/simulator/builtin-tools.js';
import { BUILTIN_TOOL_CLASSES, BuiltinTools, builtinToolClass } from '../../src/tools/index.js';
import { AGY_REAL, HAVE_CAPTURES, NO_CAPTURES_REASON } from '../helpers/captures.js';

/** `init.tools` of a capture (`.script` lines are `out:<stdout line>`; `.stdout` files are bare lines). */
function capturedTools(ctx: TestContext, file: string): string[] {
  if (!HAVE_CAPTURES) ctx.skip(NO_CAPTURES_REASON);
  for (const raw of readFileSync(join(AGY_REAL, file), 'utf8').split('\n')) {
    const line = raw.startsWith('out:') ? raw.slice(4) : raw;
    if (!line.startsWith('{')) continue;
    const event = JSON.parse(line) as { event?: string; init?: { tools?: string[] } };
    if (event.event === 'init' && event.init?.tools) return event.init.tools;
  }
  throw new Error(`${file} has no init line with tools`);
}

const UNTETHER_1_3_1 = 'littlebearapps-untether-agy-1.3.1/ok.script';
const JOIOMI_1_3_1 = 'joiomi-playbook-plugin-agy-1.3.1/success-pong.stdout';

describe("agy 1.3.1's built-in tools", () => {
  it('the two 1.3.1 captures list the same 60 tools', (ctx) => {
    const tools = capturedTools(ctx, UNTETHER_1_3_1);
    expect(tools).toHaveLength(60);
    expect(capturedTools(ctx, JOIOMI_1_3_1)).toEqual(tools);
  });

  it('every one has a class', (ctx) => {
    const unclassed = capturedTools(ctx, UNTETHER_1_3_1).filter((t) => builtinToolClass(t) === undefined);
    expect(unclassed).toEqual([]);
  });

  it("so has every tool of the simulator's lists for earlier builds", () => {
    const all = new Set([...TOOLS_1_1_8, ...TOOLS_1_1_9, ...TOOLS_1_2_7, ...TOOLS_1_3_1]);
    expect([...all].filter((t) => builtinToolClass(t) === undefined)).toEqual([]);
  });

  it('docs/reference/stream-json.md#built-in-tools gives each tool the class the code does', () => {
    const doc = readFileSync(join(import.meta.dirname, '../../docs/reference/stream-json.md'), 'utf8');
    const rows = [...doc.matchAll(/^\| (read-only|write|command|network|agent-control) \|[^|]*\|(.*)\|$/gm)];
    expect(rows.map((r) => r[1])).toEqual(['read-only', 'write', 'command', 'network', 'agent-control']);
    const listed: string[] = [];
    for (const [, cls, tools] of rows) {
      // `browser_*`-style patterns stand for several tools; the names are checked one by one.
      for (const [, name] of tools!.matchAll(/`([a-z_0-9]+)`/g)) {
        expect(builtinToolClass(name!), name).toBe(cls);
        listed.push(name!);
      }
    }
    expect(listed).toEqual(expect.arrayContaining(['sed_file', 'schedule', 'manage_task', 'run_workflow']));
  });

  it('sed_file writes; schedule, run_workflow, define_subagent and manage_task control the agent', () => {
    expect(builtinToolClass('sed_file')).toBe('write');
    for (const tool of ['schedule', 'run_workflow', 'define_subagent', 'manage_task'])
      expect(builtinToolClass(tool), tool).toBe('agent-control');
    expect(builtinToolClass('no_such_tool')).toBeUndefined();
    // An inherited property is not a tool.
    expect(builtinToolClass('constructor')).toBeUndefined();
  });
});

describe('the read-only lists agree with the classes', () => {
  it('BuiltinTools.readOnly() and safeDefaults() approve read-only tools only', () => {
    for (const tool of [...BuiltinTools.readOnly(), ...READ_ONLY_TOOLS])
      expect(builtinToolClass(tool), tool).toBe('read-only');
    expect(BuiltinTools.readOnly()).not.toContain('sed_file');
  });

  it('safeDefaults() asks before every write, command and agent-control tool agy 1.3.1 lists', async (ctx) => {
    const policies = safeDefaults(async () => true);
    const notRead = capturedTools(ctx, UNTETHER_1_3_1).filter(
      (t) => BUILTIN_TOOL_CLASSES[t] !== 'read-only' && BUILTIN_TOOL_CLASSES[t] !== 'network',
    );
    expect(notRead).toEqual(expect.arrayContaining(['sed_file', 'schedule', 'run_workflow', 'manage_task']));
    for (const name of notRead) {
      const { decision } = await evaluate(policies, createHookToolCall({ id: 'c:1', name, args: {} }));
      expect(decision, name).toBe('ask_user');
    }
  });
});
