/**
 * Resume on the ACP backend, end to end against the real Gemini CLI 0.61: a first Agent talks and closes; a
 * new Agent with its `conversationId` resumes it through `session/load` in a new process. Gemini CLI cannot
 * load a session in the wall-clock minute the session started, and a failed load spoils it
 * (docs/reference/acp.md#session-load), so the test waits (up to a minute) for the minute to turn before the
 * second Agent starts. The replayed history arrives partly after the load's answer: it must not leak into
 * the next turn's text. Two variants, their first Agents run at once so that one minute's wait serves both:
 * the user's own (persistent) HOME, and the SDK's shadow HOME.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentConfig } from '../../../src/index.js';
import { type AgentBox, agentBox } from '../../helpers/acp-e2e/agent-kit.js';
import { cliMissingReason, OFFLINE_SETTINGS, waitGroupGone } from '../../helpers/acp-e2e/harness.js';
import { FakeGemini, turns } from '../../helpers/gateway/fake-gemini.js';

const MISSING = cliMissingReason();
const describeCli = MISSING === undefined ? describe : describe.skip;

/** One variant: how the two Agents are configured. */
interface Variant {
  name: string;
  config: () => AgentConfig;
  conversationId?: string | undefined;
  firstPid?: number | undefined;
  startedMinute?: number;
}

describeCli(
  MISSING === undefined ? 'Agent on Gemini CLI 0.61 over ACP: resume' : `skipped: ${MISSING}`,
  () => {
    let fake: FakeGemini;
    let box: AgentBox;
    let userHome: string;
    const variants: Record<'persistentHome' | 'shadowHome', Variant> = {
      // The user's own HOME (here a private one the test set up as a user would): Gemini CLI's session files stay.
      persistentHome: {
        name: 'persistent HOME',
        config: () => ({ isolation: 'none', env: { HOME: userHome } }),
      },
      // The SDK's shadow HOME, as the issue configures the backend.
      shadowHome: { name: 'shadow HOME', config: () => ({ isolation: 'shadow-home' }) },
    };

    async function firstAgent(v: Variant, marker: string): Promise<void> {
      const first = box.agent(fake, v.config());
      try {
        await first.start();
        v.startedMinute = new Date().getMinutes();
        v.conversationId = first.conversationId;
        v.firstPid = first.pid;
        // Both first Agents run at once on one endpoint: the reply is chosen by the request, not by queue order.
        fake.enqueue((req) => {
          const said = JSON.stringify(req.body?.contents)
            .match(/Remember (MARKER-[A-Z]+)/g)
            ?.at(-1);
          return turns.text(`Noted ${said?.slice('Remember '.length) ?? 'nothing'}.`);
        });
        const result = await (await first.chat(`Remember ${marker}`)).result();
        expect(result.status).toBe('success');
        expect(result.conversationId).toBe(v.conversationId);
      } finally {
        await first.close();
      }
      expect(await waitGroupGone(v.firstPid as number, 15_000)).toEqual([]);
    }

    async function secondAgent(v: Variant, marker: string): Promise<void> {
      expect(v.conversationId).toBeTypeOf('string');
      const second = box.agent(fake, { ...v.config(), conversationId: v.conversationId });
      try {
        await second.start();
        expect(second.conversationId).toBe(v.conversationId);
        expect(second.pid).not.toBe(v.firstPid);
        fake.enqueue(turns.text(`You said ${marker}.`));
        const result = await (await second.chat('What did I ask you to remember?')).result();
        expect(result.status).toBe('success');
        // Only this turn's answer: the replayed history is not this turn's text.
        expect(result.text).toBe(`You said ${marker}.`);
        // The model got the earlier turn as history.
        const sent = JSON.stringify(fake.modelCalls.at(-1)?.body?.contents);
        expect(sent).toContain(`Remember ${marker}`);
        expect(sent).toContain(`Noted ${marker}.`);
      } finally {
        await second.close();
      }
    }

    beforeAll(async () => {
      fake = await FakeGemini.start({ apiKey: 'acp-agent-resume-key' });
      box = agentBox();
      userHome = join(box.root, 'user-home');
      mkdirSync(join(userHome, '.gemini'), { recursive: true, mode: 0o700 });
      writeFileSync(join(userHome, '.gemini', 'settings.json'), JSON.stringify(OFFLINE_SETTINGS), {
        mode: 0o600,
      });
      // Both first Agents at once, then one wait for the next wall-clock minute (bounded by 61 s) for both.
      await Promise.all([
        firstAgent(variants.persistentHome, 'MARKER-PERSISTENT'),
        firstAgent(variants.shadowHome, 'MARKER-SHADOW'),
      ]);
      const latest = Math.max(...Object.values(variants).map((v) => v.startedMinute ?? -1));
      while (new Date().getMinutes() === latest)
        await new Promise((ok) => setTimeout(ok, 61_000 - (Date.now() % 60_000)));
    }, 200_000);
    afterAll(async () => {
      await fake?.close();
      box?.cleanup();
    });

    it('a new Agent resumes the conversation through session/load after the minute turned (persistent HOME)', async () => {
      await secondAgent(variants.persistentHome, 'MARKER-PERSISTENT');
    }, 120_000);

    // The shadow HOME must outlive the first Agent: Gemini CLI keeps its session files under HOME
    // (docs/reference/acp.md#session-load).
    it('a new Agent resumes the conversation through session/load after the minute turned (shadow HOME)', async () => {
      await secondAgent(variants.shadowHome, 'MARKER-SHADOW');
    }, 120_000);
  },
);
