/**
 * Issue 23's ACP mappings against the real Gemini CLI 0.61 (one launch; the scripted Gemini endpoint as the
 * model): `systemInstructions: { mode: 'replace' }` becomes the request's whole system instruction
 * (`GEMINI_SYSTEM_MD`), and `capabilities.disabledTools` hides the tool from the model (`tools.exclude` in its
 * settings). docs/reference/acp.md#setup, docs/reference/acp.md#tool-names.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Agent, BuiltinTools } from '../../src/index.js';
import { type AgentBox, agentBox, declaredTools } from '../helpers/acp-e2e/agent-kit.js';
import { cliMissingReason } from '../helpers/acp-e2e/harness.js';
import { FakeGemini, turns } from '../helpers/gateway/fake-gemini.js';

const MISSING = cliMissingReason();
const describeCli = MISSING === undefined ? describe : describe.skip;
const PROMPT = 'You are PARITY-BOT. Answer in one word.';

describeCli(
  MISSING === undefined ? 'Gemini CLI 0.61 over ACP: Python SDK fields' : `skipped: ${MISSING}`,
  () => {
    let fake: FakeGemini;
    let box: AgentBox;
    let agent: Agent;

    beforeAll(async () => {
      fake = await FakeGemini.start({ apiKey: 'acp-parity-key' });
      box = agentBox();
      agent = box.agent(fake, {
        systemInstructions: { mode: 'replace', text: PROMPT },
        capabilities: { disabledTools: [BuiltinTools.RUN_COMMAND] },
      });
      await agent.start();
    }, 120_000);
    afterAll(async () => {
      await agent?.close();
      await fake?.close();
      box?.cleanup();
    });

    it('the replacing instructions are the system prompt, and the disabled tool is not offered', async () => {
      fake.enqueue(turns.text('Ready.'));
      const result = await (await agent.chat('hello')).result();
      expect(result.status, result.errorMessage).toBe('success');
      const stream = fake.requests.filter((r) => r.action === 'streamGenerateContent');
      const req = stream.at(-1)!;
      // Replaced, not appended: the system instruction is exactly ours.
      const system = req.body?.systemInstruction as { parts?: { text?: string }[] } | undefined;
      expect(system?.parts?.map((p) => p.text).join('')).toBe(PROMPT);
      const tools = declaredTools(req);
      expect(tools).toContain('read_file');
      expect(tools).not.toContain('run_shell_command');
    }, 120_000);
  },
);
