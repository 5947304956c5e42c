/**
 * Policies and `askUser` on the ACP backend, end to end against the real Gemini CLI 0.61: the model calls the
 * built-in `write_file`, Gemini CLI raises `session/request_permission` (docs/reference/acp.md#permission-requests,
 * no tool name: the SDK recovers it from `toolCallId`), and the SDK answers it from the policies. A denial
 * does not end Gemini CLI's turn (docs/reference/acp.md#rejection), so the SDK counts it and the turn ends
 * `denied`. One agent (one launch) with one rule per file-name marker:
 * - `deny-…`: `policy.deny('write_file')`, Gemini CLI's own name;
 * - `agyname-…`: `policy.deny('write_to_file')`, agy's name for the same tool;
 * - `ask-…`: `policy.askUser('write_file')` whose handler the test sets (approve, reject, never answer);
 * - everything else: `policy.allowAll()`.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Agent, type AskUserHandler, policy } from '../../../src/index.js';
import { type AgentBox, agentBox } from '../../helpers/acp-e2e/agent-kit.js';
import { cliMissingReason } from '../../helpers/acp-e2e/harness.js';
import { FakeGemini, functionResponses, turns } from '../../helpers/gateway/fake-gemini.js';

const MISSING = cliMissingReason();
const describeCli = MISSING === undefined ? describe : describe.skip;

/** Whether any argument value mentions `marker` (the file path is in the recovered arguments). */
const mentions = (marker: string) => (args: unknown) => JSON.stringify(args).includes(marker);

describeCli(
  MISSING === undefined ? 'Agent on Gemini CLI 0.61 over ACP: permissions' : `skipped: ${MISSING}`,
  () => {
    let fake: FakeGemini;
    let box: AgentBox;
    let agent: Agent;
    let handler: AskUserHandler = () => false;
    const asked: string[] = [];
    const ASK_TIMEOUT_MS = 3_000;

    beforeAll(async () => {
      fake = await FakeGemini.start({ apiKey: 'acp-agent-perm-key' });
      box = agentBox();
      agent = box.agent(fake, {
        policies: [
          policy.deny('write_file', { when: mentions('deny-'), message: 'no deny- files' }),
          policy.deny('write_to_file', { when: mentions('agyname-'), message: 'no agyname- files' }),
          policy.askUser('write_file', {
            when: mentions('ask-'),
            handler: (call, ctx) => {
              asked.push(call.name);
              return handler(call, ctx);
            },
          }),
          policy.allowAll(),
        ],
        // The fail-closed deadline of an unanswered question; not a timing assertion, only an upper bound.
        askUserTimeoutMs: ASK_TIMEOUT_MS,
      });
      await agent.start();
    }, 120_000);
    afterAll(async () => {
      await agent?.close();
      await fake?.close();
      box?.cleanup();
    });

    /** One turn in which the model writes `name` and then answers "done". */
    async function writeTurn(name: string, id: string) {
      const file = join(box.workspace, name);
      fake.enqueue(
        turns.calls([{ id, name: 'write_file', args: { file_path: file, content: `content of ${name}` } }]),
        turns.text('done'),
      );
      const result = await (await agent.chat(`Write ${name}`)).result();
      const answered = functionResponses(fake.modelCalls.at(-1)?.body).find((r) => r.id === id);
      return { file, result, answered };
    }

    it('a deny policy stops the write: no file on disk, the turn ends denied, the denial is counted', async () => {
      const { file, result, answered } = await writeTurn('deny-1.txt', 'd1');
      expect(existsSync(file)).toBe(false);
      expect(result.status).toBe('denied');
      expect(result.deniedActions).toHaveLength(1);
      expect(result.deniedActions[0]?.action).toContain('write');
      // Gemini CLI told the model the call was refused (docs/reference/acp.md#rejection).
      expect(JSON.stringify(answered?.response)).toContain('canceled by the user');
    });

    it('an allow policy lets the write run: the file is on disk, the turn succeeds', async () => {
      const { file, result } = await writeTurn('allowed-1.txt', 'a1');
      expect(readFileSync(file, 'utf8')).toBe('content of allowed-1.txt');
      expect(result.status).toBe('success');
      expect(result.deniedActions).toEqual([]);
      expect(result.text).toBe('done');
    });

    it("a policy written with agy's name (write_to_file) acts on Gemini CLI's write_file", async () => {
      const { file, result } = await writeTurn('agyname-1.txt', 'g1');
      expect(existsSync(file)).toBe(false);
      expect(result.status).toBe('denied');
      expect(result.deniedActions).toHaveLength(1);
    });

    it('askUser approving lets the write run', async () => {
      handler = () => true;
      const before = asked.length;
      const { file, result } = await writeTurn('ask-yes.txt', 'q1');
      expect(asked.length - before).toBe(1);
      expect(readFileSync(file, 'utf8')).toBe('content of ask-yes.txt');
      expect(result.status).toBe('success');
    });

    it('askUser rejecting stops the write and the turn ends denied', async () => {
      handler = () => ({ allow: false, message: 'the reviewer said no' });
      const before = asked.length;
      const { file, result } = await writeTurn('ask-no.txt', 'q2');
      expect(asked.length - before).toBe(1);
      expect(existsSync(file)).toBe(false);
      expect(result.status).toBe('denied');
      expect(result.deniedActions).toHaveLength(1);
    });

    it('askUser never answering fails closed: denied after the deadline, no file', async () => {
      let aborted = false;
      handler = (_call, ctx) =>
        new Promise<boolean>(() => {
          ctx.signal.addEventListener('abort', () => {
            aborted = true;
          });
        });
      const { file, result } = await writeTurn('ask-silent.txt', 'q3');
      expect(aborted).toBe(true);
      expect(existsSync(file)).toBe(false);
      expect(result.status).toBe('denied');
      expect(result.deniedActions).toHaveLength(1);
    });
  },
);
