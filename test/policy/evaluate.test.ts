import { describe, expect, it, vi } from 'vitest';
import { createHookToolCall } from '../../src/hooks/index.js';
import {
  bucketOf,
  type Decision,
  evaluate,
  matchesTarget,
  type Policy,
  predicateArgs,
  scopeOf,
} from '../../src/policy/index.js';
import { BuiltinTools } from '../../src/tools/index.js';

const mcpCall = (server: string, name: string, args: Record<string, unknown> = {}) =>
  createHookToolCall({ id: 'c:1', name, args, server });
const builtin = (name: string, args: Record<string, unknown> = {}) =>
  createHookToolCall({ id: 'c:1', name, args });
const handler = async () => true;

// The nine buckets, highest precedence first, as policies that all match the MCP call `srv/query`.
const BUCKETS: { label: string; tool: string; decision: Decision }[] = [];
for (const [scope, tool] of [
  ['specific', 'srv/query'],
  ['server', 'srv/*'],
  ['global', '*'],
] as const) {
  for (const decision of ['deny', 'ask_user', 'approve'] as const) {
    BUCKETS.push({ label: `${scope} ${decision}`, tool, decision });
  }
}
const policyFor = (b: (typeof BUCKETS)[number], name: string): Policy => ({
  tool: b.tool,
  decision: b.decision,
  name,
  ...(b.decision === 'ask_user' ? { askUser: handler } : {}),
});

describe('precedence table', () => {
  const pairs: [number, number][] = [];
  for (let hi = 0; hi < BUCKETS.length; hi++)
    for (let lo = hi + 1; lo < BUCKETS.length; lo++) pairs.push([hi, lo]);

  it.each(pairs)('bucket %i beats bucket %i regardless of registration order', async (hi, lo) => {
    const high = policyFor(BUCKETS[hi]!, 'high');
    const low = policyFor(BUCKETS[lo]!, 'low');
    const call = mcpCall('srv', 'query');
    for (const order of [
      [low, high],
      [high, low],
    ]) {
      const result = await evaluate(order, call);
      expect(result.policy).toBe(high);
      expect(result.decision).toBe(BUCKETS[hi]!.decision);
      expect(result.bucket).toBe(hi);
    }
  });

  it('reports scope and bucket for each of the nine buckets', async () => {
    for (const [i, b] of BUCKETS.entries()) {
      const p = policyFor(b, b.label);
      expect(bucketOf(p)).toBe(i);
      const result = await evaluate([p], mcpCall('srv', 'query'));
      expect(result).toMatchObject({ decision: b.decision, bucket: i, scope: scopeOf(b.tool) });
    }
  });

  it('built-in tools: specific beats global in every decision combination', async () => {
    for (const specific of ['deny', 'ask_user', 'approve'] as const) {
      for (const global of ['deny', 'ask_user', 'approve'] as const) {
        const s: Policy = { tool: 'run_command', decision: specific, askUser: handler };
        const g: Policy = { tool: '*', decision: global, askUser: handler };
        expect((await evaluate([g, s], builtin('run_command'))).policy).toBe(s);
        expect((await evaluate([g, s], builtin('view_file'))).policy).toBe(g);
      }
    }
  });

  it('within a bucket the first match in registration order wins', async () => {
    const a: Policy = { tool: 'run_command', decision: 'deny', name: 'a' };
    const b: Policy = { tool: 'run_command', decision: 'deny', name: 'b' };
    expect((await evaluate([a, b], builtin('run_command'))).policy?.name).toBe('a');
    expect((await evaluate([b, a], builtin('run_command'))).policy?.name).toBe('b');
  });

  it('a non-matching predicate passes to the next candidate, in bucket then registration order', async () => {
    const skipped: Policy = { tool: 'run_command', decision: 'deny', name: 'skipped', when: () => false };
    const next: Policy = { tool: 'run_command', decision: 'deny', name: 'next' };
    const lower: Policy = { tool: 'run_command', decision: 'approve', name: 'lower' };
    expect((await evaluate([lower, skipped, next], builtin('run_command'))).policy?.name).toBe('next');
    expect((await evaluate([lower, skipped], builtin('run_command'))).policy?.name).toBe('lower');
  });

  it('no match approves; an empty list approves', async () => {
    expect(await evaluate([], builtin('x'))).toEqual({ decision: 'approve' });
    expect(await evaluate([{ tool: 'other', decision: 'deny' }], builtin('x'))).toEqual({
      decision: 'approve',
    });
  });

  it('accepts builder arrays mixed with single policies', async () => {
    const result = await evaluate(
      [[{ tool: 'a', decision: 'approve' }], { tool: 'x', decision: 'deny', name: 'x' }],
      builtin('x'),
    );
    expect(result.policy?.name).toBe('x');
  });
});

describe('predicates', () => {
  const cmd = (line: string) =>
    builtin('run_command', { CommandLine: line, Options: { SafeToAutoRun: false } });

  it('true matches, false does not', async () => {
    const p: Policy = {
      tool: 'run_command',
      decision: 'deny',
      when: (args) => String(args.CommandLine).includes('rm'),
    };
    expect((await evaluate([p], cmd('rm -rf x'))).decision).toBe('deny');
    expect(await evaluate([p], cmd('ls'))).toEqual({ decision: 'approve' });
  });

  it('async predicates are awaited', async () => {
    const p: Policy = {
      tool: 'run_command',
      decision: 'deny',
      when: async (args) => {
        await new Promise((r) => setImmediate(r));
        return args.commandLine === 'sudo';
      },
    };
    expect((await evaluate([p], cmd('sudo'))).decision).toBe('deny');
    expect((await evaluate([p], cmd('ls'))).decision).toBe('approve');
  });

  it('a throwing predicate denies (fail closed), even on an approve policy, and reports the error', async () => {
    const error = new Error('bad regex');
    const p: Policy = {
      tool: 'run_command',
      decision: 'approve',
      name: 'allow_safe',
      when: () => {
        throw error;
      },
    };
    const result = await evaluate([p, { tool: '*', decision: 'approve' }], cmd('ls'));
    expect(result).toMatchObject({ decision: 'deny', policy: p, error });
  });

  it('a rejecting async predicate denies too', async () => {
    const p: Policy = { tool: '*', decision: 'approve', when: async () => Promise.reject(new Error('x')) };
    expect((await evaluate([p], cmd('ls'))).decision).toBe('deny');
  });

  it('predicates run lazily: a lower bucket predicate is not evaluated when a higher one decides', async () => {
    const lowWhen = vi.fn(() => true);
    await evaluate(
      [
        { tool: '*', decision: 'deny', when: lowWhen },
        { tool: 'run_command', decision: 'approve' },
      ],
      cmd('ls'),
    );
    expect(lowWhen).not.toHaveBeenCalled();
  });

  it('see agy keys and camelCase keys at every level, plus the call', async () => {
    const when = vi.fn(() => true);
    const call = cmd('ls');
    await evaluate([{ tool: 'run_command', decision: 'deny', when }], call);
    const [args, seenCall] = when.mock.calls[0] as unknown as [Record<string, unknown>, unknown];
    expect(args.CommandLine).toBe('ls');
    expect(args.commandLine).toBe('ls');
    expect(args.Options).toEqual({ SafeToAutoRun: false, safeToAutoRun: false });
    expect(args.options).toEqual({ SafeToAutoRun: false, safeToAutoRun: false });
    expect(seenCall).toBe(call);
  });

  it('predicateArgs does not alias the call args', () => {
    const call = cmd('ls');
    const args = predicateArgs(call);
    args.CommandLine = 'changed';
    expect(call.args.CommandLine).toBe('ls');
  });
});

describe('targets', () => {
  it('bare names match built-in tools only, never MCP tools of the same name', () => {
    expect(matchesTarget('view_file', builtin('view_file'))).toBe(true);
    expect(matchesTarget('view_file', mcpCall('fs', 'view_file'))).toBe(false);
  });

  it('server/tool and server/* match only that server', () => {
    expect(matchesTarget('fs/read', mcpCall('fs', 'read'))).toBe(true);
    expect(matchesTarget('fs/read', mcpCall('fs', 'write'))).toBe(false);
    expect(matchesTarget('fs/read', mcpCall('other', 'read'))).toBe(false);
    expect(matchesTarget('fs/*', mcpCall('fs', 'anything'))).toBe(true);
    expect(matchesTarget('fs/*', mcpCall('fsx', 'anything'))).toBe(false);
    expect(matchesTarget('fs/*', builtin('anything'))).toBe(false);
    expect(matchesTarget('fs/read', builtin('fs/read'))).toBe(false);
  });

  it('* matches everything', () => {
    expect(matchesTarget('*', builtin('x'))).toBe(true);
    expect(matchesTarget('*', mcpCall('s', 'x'))).toBe(true);
  });

  it('server wildcard vs specific MCP tool vs global, with MCP calls', async () => {
    const policies: Policy[] = [
      { tool: '*', decision: 'deny', name: 'global' },
      { tool: 'db/*', decision: 'approve', name: 'db_all' },
      { tool: 'db/drop', decision: 'deny', name: 'no_drop' },
    ];
    expect((await evaluate(policies, mcpCall('db', 'select'))).policy?.name).toBe('db_all');
    expect((await evaluate(policies, mcpCall('db', 'drop'))).policy?.name).toBe('no_drop');
    expect((await evaluate(policies, mcpCall('web', 'fetch'))).policy?.name).toBe('global');
    // server-wildcard deny beats server-wildcard approve, and still loses to a specific approve
    const more: Policy[] = [
      { tool: 'db/*', decision: 'approve', name: 'db_ok' },
      { tool: 'db/*', decision: 'deny', name: 'db_no' },
      { tool: 'db/select', decision: 'approve', name: 'select_ok' },
    ];
    expect((await evaluate(more, mcpCall('db', 'insert'))).policy?.name).toBe('db_no');
    expect((await evaluate(more, mcpCall('db', 'select'))).policy?.name).toBe('select_ok');
  });
});

// agy 1.3.1's edit tools and the alias table (docs/reference/stream-json.md#built-in-tools).
describe('targets: the edit tools', () => {
  it("a rule on BuiltinTools.EDIT_FILE reaches all three of agy's edit tools", async () => {
    const policies: Policy[] = [{ tool: BuiltinTools.EDIT_FILE, decision: 'deny', name: 'no_edits' }];
    for (const name of ['replace_file_content', 'multi_replace_file_content', 'sed_file'])
      expect((await evaluate(policies, builtin(name))).decision, name).toBe('deny');
    expect((await evaluate(policies, builtin('write_to_file'))).decision).toBe('approve');
  });

  it('a rule on one of the others reaches only it, so a specific deny leaves the other edits', async () => {
    const policies: Policy[] = [
      { tool: BuiltinTools.EDIT_FILE, decision: 'approve', name: 'edits' },
      { tool: 'sed_file', decision: 'deny', name: 'no_sed' },
    ];
    expect((await evaluate(policies, builtin('sed_file'))).policy?.name).toBe('no_sed');
    expect((await evaluate(policies, builtin('replace_file_content'))).policy?.name).toBe('edits');
    expect((await evaluate(policies, builtin('multi_replace_file_content'))).policy?.name).toBe('edits');
  });

  it("sed_file matches Gemini CLI's replace and the ACP edit kind, both ways", () => {
    expect(matchesTarget('replace', builtin('sed_file'))).toBe(true);
    expect(matchesTarget('sed_file', builtin('replace'))).toBe(true);
    expect(matchesTarget('edit', builtin('sed_file'))).toBe(true);
    expect(matchesTarget('sed_file', builtin('write_file'))).toBe(false);
  });

  it('the task, schedule and workflow tools match by their own names only', () => {
    for (const name of ['schedule', 'manage_task', 'run_workflow', 'define_subagent']) {
      expect(matchesTarget(name, builtin(name))).toBe(true);
      expect(matchesTarget(name, mcpCall('srv', name))).toBe(false);
      expect(matchesTarget('run_command', builtin(name))).toBe(false);
    }
  });
});
