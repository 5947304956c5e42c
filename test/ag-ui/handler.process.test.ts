// The AG-UI endpoint on the built package (dist/), driven by the real `@ag-ui/client` HttpAgent over HTTP on
// 127.0.0.1 against the agy simulator: events of a run, a thread's conversation across runs, approvals as
// interrupts (approved, refused, unanswered), failed statuses as RUN_ERROR, one run at a time, no leftovers.
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { type BaseEvent, HttpAgent } from '@ag-ui/client';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type * as AgUi from '../../src/ag-ui/index.js';
import type * as Root from '../../src/index.js';
import type * as Testing from '../../src/testing/index.js';
import { envSurvivors } from '../helpers/env-marker.js';

const root = resolve(import.meta.dirname, '../..');
const built = existsSync(join(root, 'dist/ag-ui/index.js'));
const load = <T>(path: string): Promise<T> =>
  import(pathToFileURL(join(root, 'dist', path)).href) as Promise<T>;

let agui: typeof AgUi;
let sdk: typeof Root;
let testing: typeof Testing;
let scratch: string;
const marker = `ag-ui-${randomUUID()}`;
const open: { server: Server; handler: AgUi.AgUiHandler }[] = [];

beforeAll(async () => {
  agui = await load('ag-ui/index.js');
  sdk = await load('index.js');
  testing = await load('testing/index.js');
  scratch = mkdtempSync(join(tmpdir(), 'agy-sdk-ag-ui-'));
});
afterEach(async () => {
  for (const { server, handler } of open.splice(0)) {
    await handler.close();
    await new Promise((r) => server.close(r));
  }
  expect(await envSurvivors('AGY_SDK_TEST_RUN', marker)).toEqual([]);
});
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** A handler on 127.0.0.1 for an agent on the simulator with `scenario`; returns its URL. */
async function serve(scenario: Testing.Scenario | undefined, agent: Root.AgentConfig = {}): Promise<string> {
  const file = scenario ? await testing.writeScenario(scenario, scratch) : undefined;
  const handler = await agui.createAgUiHandler({
    agent: {
      agyPath: testing.simulatorPath(),
      workspaces: [scratch],
      env: {
        AGY_SDK_TEST_RUN: marker,
        AGY_SIM_STATE_DIR: join(scratch, 'sim'),
        ...(file && { AGY_SIM_SCENARIO: file }),
      },
      ...agent,
    },
  });
  const server = createServer(handler);
  open.push({ server, handler });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
}

/** Runs the agent once with `content` (or a resume) and returns the run's events. */
async function run(
  agent: HttpAgent,
  content: string | undefined,
  resume?: { interruptId: string; status: 'resolved' | 'cancelled'; payload?: unknown }[],
): Promise<BaseEvent[]> {
  if (content !== undefined) agent.addMessage({ id: randomUUID(), role: 'user', content });
  const events: BaseEvent[] = [];
  await agent.runAgent(resume ? { resume } : {}, { onEvent: ({ event }) => void events.push(event) });
  return events;
}

const types = (events: BaseEvent[]): string[] => events.map((e) => e.type);
const last = (events: BaseEvent[]): Record<string, unknown> =>
  events.at(-1) as unknown as Record<string, unknown>;

const TOOL_TURN: Testing.Scenario = {
  turns: [
    {
      actions: [
        { text: 'Let me check.', chunks: 2 },
        { tool: { name: 'run_command', parameters: { CommandLine: 'ls' }, output: 'README.md' } },
        { text: 'One file: README.md.', chunks: 1 },
      ],
    },
  ],
};

describe.skipIf(!built)('agy-sdk/ag-ui with the real @ag-ui/client HttpAgent', () => {
  it('streams a run (text, steps, a tool call and its result, usage) and continues the thread in the same agy conversation', async () => {
    const url = await serve(TOOL_TURN, { policies: [sdk.policy.allowAll()] });
    const agent = new HttpAgent({ url, threadId: 'thread-1' });
    const first = await run(agent, 'What is here?');
    expect(types(first)).toEqual([
      'RUN_STARTED',
      'STEP_STARTED',
      'TEXT_MESSAGE_START',
      'TEXT_MESSAGE_CONTENT',
      'TEXT_MESSAGE_CONTENT',
      'TEXT_MESSAGE_END',
      'STEP_FINISHED',
      // agy's model step that decided the call (no text), then the tool step.
      'STEP_STARTED',
      'STEP_FINISHED',
      'STEP_STARTED',
      'TOOL_CALL_START',
      'TOOL_CALL_ARGS',
      'TOOL_CALL_END',
      'TOOL_CALL_RESULT',
      'STEP_FINISHED',
      'STEP_STARTED',
      'TEXT_MESSAGE_START',
      'TEXT_MESSAGE_CONTENT',
      'TEXT_MESSAGE_END',
      'STEP_FINISHED',
      'RUN_FINISHED',
    ]);
    expect(first.find((e) => e.type === 'TOOL_CALL_RESULT')).toMatchObject({ content: 'README.md' });
    const end = last(first);
    expect(end.outcome).toEqual({ type: 'success' });
    expect((end.usage as { inputTokens: number }[])[0]?.inputTokens).toBeGreaterThan(0);
    const conversationId = (end.result as { conversationId: string }).conversationId;
    expect(agent.messages.map((m) => m.role)).toEqual([
      'user',
      'assistant',
      'assistant',
      'tool',
      'assistant',
    ]);
    const second = await run(agent, 'And now?');
    expect(last(second).result).toMatchObject({ status: 'success', conversationId });
  });

  it('an approval is an AG-UI interrupt; the resumed run carries the answer: yes runs the tool, no denies it', async () => {
    const url = await serve({ turns: [TOOL_TURN.turns![0]!, TOOL_TURN.turns![0]!] });
    const agent = new HttpAgent({ url, threadId: 'thread-approve' });
    const asked = await run(agent, 'What is here?');
    const outcome = last(asked).outcome as {
      type: string;
      interrupts: { id: string; reason: string; toolCallId: string }[];
    };
    expect(outcome.type).toBe('interrupt');
    expect(outcome.interrupts).toHaveLength(1);
    expect(outcome.interrupts[0]).toMatchObject({
      reason: agui.APPROVAL_REASON,
      message: 'Allow run_command `ls`?',
    });
    expect(asked.find((e) => e.type === 'TOOL_CALL_START')).toMatchObject({
      toolCallId: outcome.interrupts[0]!.toolCallId,
    });
    const yes = await run(agent, undefined, [
      { interruptId: outcome.interrupts[0]!.id, status: 'resolved', payload: { approved: true } },
    ]);
    expect(types(yes)[0]).toBe('RUN_STARTED');
    expect(yes.find((e) => e.type === 'TOOL_CALL_RESULT')).toMatchObject({ content: 'README.md' });
    expect(last(yes).result).toMatchObject({ status: 'success' });

    const again = await run(agent, 'Again?');
    const [interrupt] = (last(again).outcome as { interrupts: { id: string }[] }).interrupts;
    const no = await run(agent, undefined, [
      { interruptId: interrupt!.id, status: 'resolved', payload: { approved: false, message: 'Not now.' } },
    ]);
    expect(last(no).result).toMatchObject({ status: 'denied' });
    expect(JSON.stringify(last(no).result)).toContain('Not now.');
  });

  it('no answer within askUserTimeoutMs fails closed: the call is denied and the resuming run gets the rest of the turn', async () => {
    let answered = 0;
    const url = await serve(TOOL_TURN, {
      askUserTimeoutMs: 300,
      hooks: [
        sdk.hooks.postToolCall(() => {
          answered += 1;
        }),
      ],
    });
    const agent = new HttpAgent({ url, threadId: 'thread-timeout' });
    const asked = await run(agent, 'What is here?');
    const [interrupt] = (last(asked).outcome as { interrupts: { id: string; expiresAt: string }[] })
      .interrupts;
    await new Promise((r) => setTimeout(r, Date.parse(interrupt!.expiresAt) - Date.now() + 200));
    // The client itself refuses to answer an expired interrupt: it must be cancelled to go on.
    const late = await run(agent, undefined, [{ interruptId: interrupt!.id, status: 'cancelled' }]);
    expect(
      late.some((e) => e.type === 'TOOL_CALL_RESULT' && (e as { content?: string }).content === 'README.md'),
    ).toBe(false);
    expect(last(late).result).toMatchObject({ status: 'denied' });
    expect(answered).toBe(0);
  });

  it("a failed status ends the run RUN_ERROR with agy's own error text", async () => {
    const url = await serve({
      turns: [
        { actions: [{ text: 'Trying.' }], end: { status: 'ERROR', error: 'model overloaded (code 503)' } },
      ],
    });
    const events = await run(new HttpAgent({ url, threadId: 'thread-error' }), 'x').catch((e: unknown) => e);
    expect(events).toBeInstanceOf(Array);
    const end = last(events as BaseEvent[]);
    expect(end.type).toBe('RUN_ERROR');
    expect(end.message).toContain('model overloaded (code 503)');
    expect(end.code).toBe('error');
    // A crash: agy killed mid-turn, its stderr's last words in the message.
    const crashed = await serve({
      turns: [{ actions: [{ text: 'Half' }, { stderr: 'panic: boom' }, { killSelf: 'SIGKILL' }] }],
    });
    const crash = last(await run(new HttpAgent({ url: crashed, threadId: 'thread-crash' }), 'x'));
    expect(crash).toMatchObject({ type: 'RUN_ERROR', code: 'error' });
    expect(String(crash.message)).toMatch(/SIGKILL|panic: boom|exited/);
  });

  it('one run at a time per thread: a second run while one streams is refused (409)', async () => {
    const url = await serve({
      turns: [{ actions: [{ text: 'Working…' }, { sleep: 1_500 }, { text: 'done' }] }],
    });
    const a = new HttpAgent({ url, threadId: 'thread-busy' });
    const b = new HttpAgent({ url, threadId: 'thread-busy' });
    a.addMessage({ id: 'one', role: 'user', content: 'one' });
    let streaming!: () => void;
    const started = new Promise<void>((r) => (streaming = r));
    const first = a.runAgent({}, { onTextMessageContentEvent: () => streaming() });
    await started;
    const refused = await run(b, 'two').catch((e: { status?: number }) => e.status);
    expect(refused).toBe(409);
    await first;
    expect(a.messages.at(-1)).toMatchObject({ role: 'assistant', content: 'done' });
  });

  it('close() ends a turn paused on an approval: its agy process exits, nothing is left', async () => {
    const url = await serve(TOOL_TURN);
    const agent = new HttpAgent({ url, threadId: 'thread-close' });
    const asked = await run(agent, 'What is here?');
    expect((last(asked).outcome as { type: string }).type).toBe('interrupt');
    const { handler, server } = open.pop()!;
    await handler.close();
    await new Promise((r) => server.close(r));
    expect(await envSurvivors('AGY_SDK_TEST_RUN', marker)).toEqual([]);
  });
});
