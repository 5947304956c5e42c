// Google's agy_acp_server 1.1.1 (the `agy-acp` preset) over the real spawn path: the scripted ACP agent
// (fixtures/scripted-agent.mjs, the official SDK's agent side), installed on PATH as `agy_acp_server` so the
// preset's own command is what starts, replays the only real material,
// ../shared/fixtures/agy-real/mluigi-htui-agy-acp-server-1.1.1/agy_acp_turn.jsonl: its session/update payloads
// verbatim, prompt by prompt, over real pipes, and no usage on any prompt result (SOURCE.txt: "no usage_update at
// all"). The capture holds no permission request; SOURCE.txt says the server offers exactly allow/allow_once and
// deny/reject_once, so the scripted agent asks with those options for the pending write, between its
// announcement and its re-send (where in the sequence the server asks is not recorded).
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type AgentConfig, policy } from '../../../src/index.js';
import type { AcpSessionUpdate } from '../../../src/protocol/acp.js';
import { type AcpSandbox, acpSandbox, collect, SCRIPTED_AGENT } from '../../helpers/acp.js';
import { ACP_SERVER, AGY_REAL, HAVE_CAPTURES, NO_CAPTURES_REASON } from '../../helpers/captures.js';

/**
 * The capture's session/update payloads, in order, with the capturer's `/scratch` (agy's scratch directory,
 * rewritten by them) as `workspace`: the SDK confines file tools to the workspaces.
 */
function updates(workspace: string): AcpSessionUpdate[] {
  return readFileSync(join(AGY_REAL, ACP_SERVER, 'agy_acp_turn.jsonl'), 'utf8')
    .replaceAll('/scratch', workspace)
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => (JSON.parse(l) as { params: { update: AcpSessionUpdate } }).params.update);
}

/** The permission options SOURCE.txt names. */
const OPTIONS = [
  { optionId: 'allow', name: 'Allow', kind: 'allow_once' },
  { optionId: 'deny', name: 'Deny', kind: 'reject_once' },
];

/**
 * The scripted agent's turns: the reply (lines 1–2), the read (3–5), the write (6–9) with the permission request
 * after its first `tool_call`; `upToPermission` ends the write there (a denied write goes no further).
 */
function turns(workspace: string, upToPermission = false): Record<string, unknown>[] {
  const all = updates(workspace);
  const pending = all[5] as AcpSessionUpdate & { toolCallId: string };
  const { sessionUpdate: _kind, ...toolCall } = pending;
  const write: Record<string, unknown>[] = [
    { type: 'updates', updates: [pending] },
    { type: 'permission', toolCall, options: OPTIONS },
  ];
  if (!upToPermission) write.push({ type: 'updates', updates: all.slice(6) });
  return [
    { actions: [{ type: 'updates', updates: all.slice(0, 2) }], usage: null },
    { actions: [{ type: 'updates', updates: all.slice(2, 5) }], usage: null },
    { actions: write, usage: null },
  ];
}

const boxes: AcpSandbox[] = [];
afterEach(() => {
  for (const b of boxes.splice(0)) b.cleanup();
});

/** An Agent on the `agy-acp` preset whose `agy_acp_server` (found on PATH) is the scripted agent. */
function agyAcpAgent(scenario: (workspace: string) => Record<string, unknown>, config: AgentConfig = {}) {
  const b = acpSandbox();
  boxes.push(b);
  const bin = join(b.dir, 'bin');
  mkdirSync(bin);
  const server = join(bin, 'agy_acp_server');
  writeFileSync(server, `#!/bin/sh\nexec '${process.execPath}' '${SCRIPTED_AGENT}' "$@"\n`);
  chmodSync(server, 0o755);
  const agent = b.agent(scenario(b.workspace), {
    ...config,
    backend: {
      kind: 'acp',
      preset: 'agy-acp',
      command: undefined,
      args: undefined,
      env: { PATH: `${bin}:${process.env.PATH ?? ''}`, ACP_SCENARIO: b.scenarioFile, ACP_LOG: b.logFile },
    },
  });
  return { agent, box: b };
}

describe.skipIf(!HAVE_CAPTURES)(
  HAVE_CAPTURES ? 'agy_acp_server 1.1.1 over real pipes (agy-acp preset)' : `skipped: ${NO_CAPTURES_REASON}`,
  () => {
    it('three prompts: calls named by the tool in the title, the gated write one call, end_turn after it success, usage null', async () => {
      // agy-real/mluigi-htui-agy-acp-server-1.1.1/agy_acp_turn.jsonl
      const { agent, box } = agyAcpAgent((ws) => ({ turns: turns(ws) }), {
        policies: [policy.allowAll()],
      });
      await using _agent = agent;

      const reply = await (await agent.chat('say ok')).result();
      expect(reply.status, reply.errorMessage).toBe('success');
      expect(reply.text).toBe('ok');
      expect(reply.usage).toBeNull();

      const readResponse = await agent.chat('read the README');
      const reads = await collect(readResponse.toolResults());
      const read = await readResponse.result();
      expect(read.status, read.errorMessage).toBe('success');
      expect(reads).toMatchObject([
        { name: 'client_view_file', title: 'Running client_view_file', state: 'DONE' },
      ]);
      expect(read.usage).toBeNull();

      const writeResponse = await agent.chat('write ok to a file');
      const writes = await collect(writeResponse.toolResults());
      const write = await writeResponse.result();
      // Only a completed call, no reply text: end_turn is success, not "ended without an answer".
      expect(write.status, write.errorMessage).toBe('success');
      expect(write.text).toBe('');
      expect(write.usage).toBeNull();
      // The pending write re-sent as a second `tool_call` (capture lines 6 and 7) is one call.
      expect(writes).toHaveLength(1);
      expect(writes[0]).toMatchObject({
        name: 'client_create_file',
        title: 'Running client_create_file',
        state: 'DONE',
        args: { code_content: 'ok\n', target_file: join(box.workspace, 'htui-agy-probe.txt') },
      });
      const answers = box.events().filter((e) => e.event === 'permission');
      expect(answers.map((e) => e.response)).toEqual([
        { outcome: { outcome: 'selected', optionId: 'allow' } },
      ]);
    });

    it("a policy written with agy's tool name denies the server's client_create_file: reject_once, the turn denied", async () => {
      // agy-real/mluigi-htui-agy-acp-server-1.1.1/agy_acp_turn.jsonl (the write, lines 6–7) and SOURCE.txt (options)
      const { agent, box } = agyAcpAgent((ws) => ({ turns: [turns(ws, true)[2]] }), {
        policies: [policy.deny('write_to_file'), policy.allowAll()],
      });
      await using _agent = agent;
      const response = await agent.chat('write ok to a file');
      const calls = await collect(response.toolResults());
      const result = await response.result();
      expect(result.status).toBe('denied');
      expect(calls).toMatchObject([{ name: 'client_create_file', denied: true }]);
      // The policy's verdict (the path is inside the workspace, so confinement allowed it).
      expect(result.deniedActions).toMatchObject([{ action: 'client_create_file', source: 'sdk' }]);
      const answers = box.events().filter((e) => e.event === 'permission');
      expect(answers.map((e) => e.response)).toEqual([
        { outcome: { outcome: 'selected', optionId: 'deny' } },
      ]);
    });
  },
);
