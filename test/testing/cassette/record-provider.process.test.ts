// Recording in provider mode: the gateway's keys (the upstream API key and headers, which agy never sees, and
// the per-run token agy's environment carries) are secrets of the session, so none of them reaches the
// cassette even when the model repeats them. Simulator as agy (endpoint mode) → gateway → a mock OpenAI upstream.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useSandboxAgents } from '../../helpers/agents.js';
import { OpenAiChatMock } from '../../helpers/gateway/mocks/openai-chat.js';
import { ensureSimulatorBuilt } from '../../helpers/sim-process.js';

const sb = useSandboxAgents();

describe('recording in provider mode', () => {
  it("keeps the gateway's upstream key and headers out of the cassette, also when the model repeats them", async () => {
    await ensureSimulatorBuilt();
    const apiKey = `upstream-${randomBytes(12).toString('hex')}`;
    const org = `org-${randomBytes(8).toString('hex')}`;
    const mock = await OpenAiChatMock.start(apiKey);
    try {
      mock.script({
        parts: [{ text: `my key is ${apiKey} for ${org}`, chunks: 5 }],
        usage: { input: 4, output: 9 },
      });
      const agent = await sb.agentWith(undefined, {
        provider: {
          kind: 'openai-chat',
          baseUrl: mock.baseUrl,
          apiKey,
          model: 'gpt-test-1',
          headers: { 'X-Org': org },
        },
        record: { dir: join(sb.box.root, 'cassettes') },
      });
      const result = await (await agent.chat('p')).result();
      expect(result.status, result.errorMessage).toBe('success');
      expect(result.text).toContain(apiKey);
      await agent.close();
      const text = readFileSync(agent.cassetteFile!, 'utf8');
      expect(text).not.toContain(apiKey);
      expect(text).not.toContain(org);
      expect(text).toContain('my key is <secret:provider-api-key> for <secret:provider-X-Org>');
    } finally {
      await mock.close();
    }
  });
});
