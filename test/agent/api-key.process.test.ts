/**
 * `apiKey` (Python `GeminiConfig.api_key`) on agy is API-key mode: `modelProvider: "gemini"` in the shadow HOME's
 * settings plus `GEMINI_API_KEY` in agy's environment (docs/reference/plugins-and-config.md#api-key-mode), never
 * in argv. Checked end to end: the simulator in endpoint mode (docs/reference/gemini-api.md#agy-as-a-gemini-client)
 * calls a fake Gemini endpoint that accepts only this key.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useSandboxAgents } from '../helpers/agents.js';
import { FakeGemini, turns } from '../helpers/gateway/fake-gemini.js';
import { ensureSimulatorBuilt } from '../helpers/sim-process.js';

const KEY = 'parity-api-key-4711';
const sb = useSandboxAgents();
let fake: FakeGemini;

beforeAll(async () => {
  await ensureSimulatorBuilt();
  fake = await FakeGemini.start({ apiKey: KEY });
}, 120_000);
afterAll(async () => {
  await fake?.close();
});

describe('apiKey on agy', () => {
  it('reaches the model as the API key, with modelProvider gemini in the shadow settings, not in argv', async () => {
    fake.enqueue(turns.text('Keyed.'));
    const logged: string[] = [];
    const log = (m: unknown) => void logged.push(String(m));
    const agent = await sb.agentWith(undefined, {
      apiKey: KEY,
      env: { GOOGLE_GEMINI_BASE_URL: fake.url },
      logger: { debug: log, info: log, warn: log, error: log },
    });
    const response = await agent.chat('hello');
    const result = await response.result();
    expect(result.status, result.errorMessage).toBe('success');
    expect(result.text).toBe('Keyed.');
    const stream = fake.requests.filter((r) => r.action === 'streamGenerateContent');
    expect(stream.at(-1)?.headers['x-goog-api-key']).toBe(KEY);
    const settings = JSON.parse(
      await readFile(join(agent.sessionDir!, 'home/.gemini/antigravity-cli/settings.json'), 'utf8'),
    ) as Record<string, unknown>;
    expect(settings.modelProvider).toBe('gemini');
    const argv = await readFile(`/proc/${agent.pid}/cmdline`, 'utf8');
    expect(argv).toContain('stream-json');
    expect(argv).not.toContain(KEY);
    expect(logged.join('\n')).not.toContain(KEY);
  });
});
