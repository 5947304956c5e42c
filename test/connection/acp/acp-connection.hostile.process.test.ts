/**
 * The ACP backend against a hostile ACP agent over real pipes (the scripted agent, spawned through the real
 * spawn path): stdout that keeps coming after close, lines over the cap, junk the SDK would print with
 * `console.error`, FIFOs and symlink swaps in the workspace, and configurations that would approve everything.
 * What the client must do is docs/reference/acp.md#hostile-agents.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { WatchdogTimeoutError } from '../../../src/connection/index.js';
import { ConfigError, type Logger, policy } from '../../../src/index.js';
import { type AcpSandbox, acpSandbox, memoryLogger } from '../../helpers/acp.js';

const boxes: AcpSandbox[] = [];
function box(): AcpSandbox {
  const b = acpSandbox();
  boxes.push(b);
  return b;
}
afterEach(() => {
  vi.restoreAllMocks();
  for (const b of boxes.splice(0)) b.cleanup();
});

type Ev = Record<string, unknown> & { event: string };

/**
 * The scripted agent races 300 `fs/<op>_text_file` calls on a workspace file against a process that keeps
 * swapping it for a symlink to a secret outside; returns the agent's race report and the secret's path.
 */
async function swapRace(op: 'read' | 'write', untilOk = false): Promise<{ race: Ev; secret: string }> {
  const b = box();
  const secret = join(b.dir, 'secret.txt');
  writeFileSync(secret, 'SECRET');
  await using agent = b.agent({
    turns: [
      {
        actions: [
          { type: 'race', op, path: join(b.workspace, 'f.txt'), target: secret, tries: 300, untilOk },
          { type: 'text', text: 'raced' },
        ],
      },
    ],
  });
  await (await agent.chat('race')).result();
  const [race] = b.events().filter((e) => e.event === 'race') as Ev[];
  return { race: race as Ev, secret };
}

describe('ACP backend: a hostile agent cannot crash the host', () => {
  it('close() while the agent keeps writing stdout: the late lines are dropped, nothing throws', async () => {
    const b = box();
    const agent = b.agent({
      turns: [
        {
          actions: [
            { type: 'text', text: 'streaming' },
            { type: 'stdoutAfterClose', ms: 4_000 },
          ],
        },
      ],
    });
    const response = await agent.chat('go');
    // The first text proves the turn is streaming; close while the agent is still writing.
    for await (const step of response.steps()) if (step.type === 'agent_response') break;
    await agent.close();
    const result = await response.result();
    expect(result.status).toBe('canceled');
    // The crash guard (test/setup/crash-guard.ts) fails this test if an enqueue threw from the data handler.
  });

  it('junk JSON-RPC goes to the configured logger, never to console', async () => {
    const b = box();
    const logger = memoryLogger();
    const consoleError = vi.spyOn(console, 'error');
    const consoleWarn = vi.spyOn(console, 'warn');
    const junk = [
      '{"jsonrpc":"2.0","id":987654,"result":{}}',
      '{"jsonrpc":"2.0","result":{}}',
      '{"foo":1}',
      '{"jsonrpc":"2.0","method":"session/update","params":{}}',
      '{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{}}}',
      '{not json',
      '[1,2,3]',
    ];
    await using agent = b.agent(
      {
        turns: [
          {
            actions: [
              ...junk.map((text) => ({ type: 'garbage', text })),
              { type: 'text', text: 'still fine' },
            ],
          },
        ],
      },
      { logger },
    );
    const result = await (await agent.chat('hi')).result();
    expect(result.status).toBe('success');
    expect(result.text).toBe('still fine');
    expect(consoleError).not.toHaveBeenCalled();
    expect(consoleWarn).not.toHaveBeenCalled();
    const dropped = logger.lines.filter((l) => l.includes('(dropped)'));
    expect(dropped).toHaveLength(junk.length);
    expect(dropped[0]).toContain('a response to no request of ours');
  });

  it("session/updates the SDK's schema rejects are dropped through the logger, once per kind, never to console or stderr", async () => {
    const b = box();
    const logger = memoryLogger();
    const consoleError = vi.spyOn(console, 'error');
    const consoleWarn = vi.spyOn(console, 'warn');
    const stderrWrite = vi.spyOn(process.stderr, 'write');
    const invalid = [
      // Wrong-typed fields deep inside content (the shallow checks pass: sessionId, update.sessionUpdate).
      { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 42 } },
      {
        sessionUpdate: 'agent_message_chunk',
        content: { type: 'resource', resource: { uri: 'file:///x', text: { nested: [1] } } },
      },
      // A huge array on an update whose required title has the wrong type.
      {
        sessionUpdate: 'tool_call',
        toolCallId: 't1',
        title: ['not', 'a', 'string'],
        content: Array.from({ length: 5_000 }, (_, i) => ({
          type: 'content',
          content: { type: 'text', text: `${i}` },
        })),
      },
      { sessionUpdate: 'hostile_update', payload: 'x' },
      { sessionUpdate: 'usage_update', used: -1, size: 10 },
      { sessionUpdate: 'plan' },
      { sessionUpdate: 'notice', severity: 'info', title: '' },
      { sessionUpdate: 'agent_message_chunk', content: { type: 'image', data: 'AA==' } },
    ];
    await using agent = b.agent(
      {
        turns: [
          {
            actions: [
              { type: 'text', text: 'before ' },
              ...invalid.map((update) => ({ type: 'rawUpdate', update })),
              { type: 'text', text: 'still fine' },
            ],
          },
        ],
      },
      { logger },
    );
    const result = await (await agent.chat('hi')).result();
    expect(result.status).toBe('success');
    expect(result.text).toBe('before still fine');
    expect(consoleError).not.toHaveBeenCalled();
    expect(consoleWarn).not.toHaveBeenCalled();
    expect(stderrWrite).not.toHaveBeenCalled();
    const warned = logger.lines.filter((l) => l.includes('does not match the ACP schema'));
    // One warning per kind: the three agent_message_chunk updates are logged once.
    expect(warned.map((l) => /\(([^)]+)\) that does not match/.exec(l)?.[1])).toEqual([
      'agent_message_chunk',
      'tool_call',
      'hostile_update',
      'usage_update',
      'plan',
      'notice',
    ]);
    expect(warned[0]).toContain('update.content.text');
    expect(warned[1]).toContain('update.title');
    expect(warned[2]).toContain('unknown update kind');
  });

  it('a stdout line just over maxLineBytes is dropped and logged; the turn goes on', async () => {
    const b = box();
    const logger = memoryLogger();
    const max = 256 * 1024;
    await using agent = b.agent(
      {
        turns: [
          {
            actions: [
              { type: 'longLine', bytes: max + 1 },
              { type: 'text', text: 'after the long line' },
            ],
          },
        ],
      },
      { logger, maxLineBytes: max },
    );
    const result = await (await agent.chat('hi')).result();
    expect(result.status).toBe('success');
    expect(result.text).toBe('after the long line');
    expect(logger.lines.some((l) => l.includes(`longer than ${max} bytes`))).toBe(true);
  });

  it("the idle watchdog's message names the ACP agent, not agy", async () => {
    const b = box();
    await using agent = b.agent(
      { turns: [{ actions: [{ type: 'text', text: 'x' }, { type: 'hang' }] }] },
      { idleTimeoutMs: 800 },
    );
    const result = await (await agent.chat('stall')).result();
    expect(result.error).toBeInstanceOf(WatchdogTimeoutError);
    expect(result.error?.message).toMatch(/^the ACP agent sent no event for 800 ms/);
    expect(result.error?.message).not.toMatch(/agy/);
  });
});

describe('ACP backend: the file system an agent is served', () => {
  it('FIFOs in the workspace are refused without blocking; the host keeps reading files and closes', async () => {
    const b = box();
    const fifos = [0, 1, 2, 3, 4].map((i) => join(b.workspace, `pipe${i}`));
    for (const f of fifos) execFileSync('mkfifo', [f]);
    const own = join(b.dir, 'own.txt');
    writeFileSync(own, 'host data');
    const agent = b.agent({
      turns: [
        {
          actions: [
            ...fifos.slice(0, 4).map((path) => ({ type: 'fsRead', path })),
            { type: 'fsWrite', path: fifos[4], content: 'x' },
            { type: 'text', text: 'done' },
          ],
        },
      ],
    });
    const result = await (await agent.chat('fifo')).result();
    expect(result.status).toBe('success');
    const fs = b.events().filter((e) => e.event === 'fs');
    expect(fs.map((e) => e.ok)).toEqual([false, false, false, false, false]);
    for (const e of fs.slice(0, 4)) expect(String(e.message)).toMatch(/not a regular file/);
    // Node's file-system threads are free: the host's own read completes, and close() resolves.
    expect(await readFile(own, 'utf8')).toBe('host data');
    await agent.close();
  });

  it('a file swapped to a symlink during writes never lets a write land outside the workspace', async () => {
    const { race, secret } = await swapRace('write');
    const results = race.results as { ok: boolean }[];
    expect(results).toHaveLength(300);
    expect(race.flips as number).toBeGreaterThan(10);
    expect(readFileSync(secret, 'utf8')).toBe('SECRET');
  });

  it('a file swapped to a symlink during reads never returns an outside file', async () => {
    const { race } = await swapRace('read', true);
    const results = race.results as { ok: boolean; content?: string }[];
    expect(results.length).toBeGreaterThanOrEqual(300);
    expect(results.some((r) => r.ok && r.content === 'inside')).toBe(true);
    expect(results.filter((r) => r.content === 'SECRET')).toEqual([]);
  });

  it('a directory swapped to a symlink under the path never lets a write out', async () => {
    const b = box();
    const outsideDir = join(b.dir, 'outside');
    execFileSync('mkdir', [outsideDir]);
    await using agent = b.agent({
      turns: [
        {
          actions: [
            {
              type: 'race',
              op: 'write',
              path: join(b.workspace, 'd'),
              target: outsideDir,
              tries: 200,
              sub: 'x.txt',
            },
            { type: 'text', text: 'raced' },
          ],
        },
      ],
    });
    await (await agent.chat('race')).result();
    expect(execFileSync('ls', ['-A', outsideDir]).toString()).toBe('');
  });
});

describe('ACP backend: permissions without a policy', () => {
  it('policies: [] with no preToolCall hook is refused at new Agent, as on agy', () => {
    const b = box();
    expect(() => b.agent({}, { policies: [] })).toThrow(ConfigError);
    try {
      b.agent({}, { policies: [] });
    } catch (err) {
      expect((err as ConfigError).field).toBe('policies');
    }
  });

  it('a logger without debug does not turn an allowed permission into a denial', async () => {
    const b = box();
    const warnings: string[] = [];
    const logger = { warn: (m: string) => warnings.push(m), error: (m: string) => warnings.push(m) };
    await using agent = b.agent(
      {
        turns: [
          {
            actions: [
              {
                type: 'tool',
                name: 'write_file',
                kind: 'edit',
                permission: { diff: { path: join(b.workspace, 'a.txt'), oldText: null, newText: 'hi' } },
              },
              { type: 'text', text: 'written' },
            ],
          },
        ],
      },
      { policies: [policy.allowAll()], logger: logger as unknown as Logger },
    );
    const result = await (await agent.chat('write')).result();
    expect(result.status).toBe('success');
    const [p] = b.events().filter((e) => e.event === 'permission') as Ev[];
    expect((p!.response as { outcome: unknown }).outcome).toEqual({
      outcome: 'selected',
      optionId: 'proceed_once',
    });
  });
});
