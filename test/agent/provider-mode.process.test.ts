/**
 * Provider mode end to end (issue 10): `new Agent({ provider })` → the simulator (as agy, in endpoint mode) →
 * the in-process gateway → a mock OpenAI-compatible upstream. The upstream key must appear in no env var, argv
 * or file of the agy process, its HOME or the session directory; the turn reports the upstream's own counts;
 * after close() (or a failed start) nothing is left listening.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Agent } from '../../src/agent/agent.js';
import { AgyNotFoundError, ConfigError } from '../../src/errors.js';
import { collect, useSandboxAgents } from '../helpers/agents.js';
import { OpenAiChatMock } from '../helpers/gateway/mocks/openai-chat.js';
import { probePort, tcpServers } from '../helpers/runtime-files.js';
import { ensureSimulatorBuilt } from '../helpers/sim-process.js';

const sb = useSandboxAgents();

/** Every regular file below `dir`, recursively (links not followed). */
async function filesBelow(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true }).catch(() => [])) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await filesBelow(path)));
    else if (entry.isFile()) out.push(path);
  }
  return out;
}

function environOf(pid: number): Promise<Record<string, string>> {
  return readFile(`/proc/${pid}/environ`, 'utf8').then((text) =>
    Object.fromEntries(
      text
        .split('\0')
        .filter(Boolean)
        .map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]),
    ),
  );
}

/** Whether nothing listens at `url`'s port any more. */
const refused = async (url: string): Promise<boolean> =>
  (await probePort(Number(new URL(url).port))) === 'ECONNREFUSED';

describe('provider mode', () => {
  it('runs a tool loop on the upstream; the key never reaches agy; providerUsage per turn; close stops the gateway', async () => {
    await ensureSimulatorBuilt();
    const mock = await OpenAiChatMock.start();
    try {
      mock.script({
        parts: [{ toolCall: { id: 'call_p1', name: 'list_dir', args: { DirectoryPath: sb.box.workspace } } }],
        usage: { input: 40, output: 6 },
      });
      mock.script({
        parts: [{ text: 'Listed through the provider.', chunks: 3 }],
        usage: { input: 60, output: 9, cached: 20 },
      });
      const agent = await sb.agentWith(undefined, {
        provider: { kind: 'openai-chat', baseUrl: mock.baseUrl, apiKey: mock.apiKey, model: 'gpt-test-1' },
      });
      const response = await agent.chat('what is in the workspace?');
      const result = await response.result();
      expect(result.status, result.errorMessage).toBe('success');
      expect(result.text).toBe('Listed through the provider.');
      expect((await collect(response.toolResults())).map((c) => c.name)).toEqual(['list_dir']);
      // The upstream's own counts, next to agy's: 2 requests; input excludes cache reads.
      expect(result.providerUsage).toEqual({
        inputTokens: 40 + 40,
        outputTokens: 6 + 9,
        thinkingTokens: 0,
        cacheReadTokens: 20,
        totalTokens: 80 + 15,
        requests: 2,
        models: ['gpt-test-1'],
        cacheWriteTokens: 0,
        // gpt-test-1 is in no price table: its cost is unknown, never 0.
        costUsd: null,
      });
      expect(result.usage?.inputTokens).toBeGreaterThan(0);
      // Every upstream request went to the pinned model with the upstream key.
      expect(mock.requests.map((r) => (r.body as { model: string }).model)).toEqual([
        'gpt-test-1',
        'gpt-test-1',
      ]);

      // agy's process: the gateway's URL and token, never the key, in env or argv.
      const pid = agent.pid!;
      const env = await environOf(pid);
      expect(env.GOOGLE_GEMINI_BASE_URL).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(env.GEMINI_API_KEY).toBeTruthy();
      expect(env.GEMINI_API_KEY).not.toBe(mock.apiKey);
      expect(await readFile(`/proc/${pid}/environ`, 'utf8')).not.toContain(mock.apiKey);
      expect(await readFile(`/proc/${pid}/cmdline`, 'utf8')).not.toContain(mock.apiKey);
      // Its (shadow) HOME says modelProvider "gemini"; no file there or in the session dir holds the key.
      const settings = JSON.parse(
        await readFile(join(env.HOME!, '.gemini/antigravity-cli/settings.json'), 'utf8'),
      ) as Record<string, unknown>;
      expect(settings.modelProvider).toBe('gemini');
      const files = [...(await filesBelow(env.HOME!)), ...(await filesBelow(sb.box.dataDir))];
      expect(files.length).toBeGreaterThan(0);
      for (const file of files) expect(await readFile(file, 'utf8'), file).not.toContain(mock.apiKey);

      // A second turn counts only its own upstream requests.
      mock.script({ parts: [{ text: 'Again.' }], usage: { input: 5, output: 1 } });
      const again = await (await agent.chat('again')).result();
      expect(again.status, again.errorMessage).toBe('success');
      expect(again.providerUsage).toMatchObject({ inputTokens: 5, outputTokens: 1, requests: 1 });

      const gatewayUrl = env.GOOGLE_GEMINI_BASE_URL!;
      expect(await refused(gatewayUrl)).toBe(false);
      await agent.close();
      expect(await refused(gatewayUrl)).toBe(true);
    } finally {
      await mock.close();
    }
  });

  it('a start that fails after the gateway started leaves nothing listening', async () => {
    const before = tcpServers();
    const agent = new Agent({
      agyPath: join(sb.box.root, 'no-such-agy'),
      workspaces: [sb.box.workspace],
      dataDir: sb.box.dataDir,
      provider: {
        kind: 'anthropic',
        baseUrl: 'http://127.0.0.1:9',
        apiKey: 'sk-never-used',
        model: 'claude-x',
      },
    });
    await expect(agent.start()).rejects.toBeInstanceOf(AgyNotFoundError);
    // The server has stopped listening when close() resolves; Node drops its handle a few loop turns later.
    for (let turn = 0; turn < 1_000 && tcpServers() > before; turn++)
      await new Promise((resolve) => setImmediate(resolve));
    expect(tcpServers()).toBe(before);
  });

  it.each([
    [{ provider: { kind: 'grpc', baseUrl: 'http://x', apiKey: 'k', model: 'm' } }, 'provider.kind'],
    [{ provider: { kind: 'anthropic', baseUrl: 'ftp://x', apiKey: 'k', model: 'm' } }, 'provider.baseUrl'],
    [{ provider: { kind: 'anthropic', baseUrl: 'http://x', apiKey: 'k', model: '' } }, 'provider.model'],
    [
      { provider: { kind: 'anthropic', baseUrl: 'http://x', apiKey: 'k', model: 'm' }, isolation: 'none' },
      'isolation',
    ],
    [
      {
        provider: { kind: 'anthropic', baseUrl: 'http://x', apiKey: 'k', model: 'm' },
        env: { GEMINI_API_KEY: 'mine' },
      },
      'env.GEMINI_API_KEY',
    ],
  ])('refuses %j with a ConfigError naming %s', (config, field) => {
    let error: unknown;
    try {
      // biome-ignore lint/suspicious/noExplicitAny: invalid configs on purpose
      new Agent(config as any);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).field).toBe(field);
  });
});
