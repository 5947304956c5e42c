// `agy-sdk gateway` as a child process in front of a mock OpenAI Chat upstream; a real `@google/genai` client
// uses the printed exports; SIGTERM shuts it down gracefully.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { GoogleGenAI } from '@google/genai';
import { describe, expect, it } from 'vitest';
import { BUILT, runCli, startCli } from '../helpers/cli.js';
import { OpenAiChatMock } from '../helpers/gateway/mocks/openai-chat.js';
import { probePort } from '../helpers/runtime-files.js';

describe.skipIf(!BUILT)('agy-sdk gateway', () => {
  it('prints the exports and the settings snippet, serves @google/genai, and exits 0 on SIGTERM with the port closed', async () => {
    const mock = await OpenAiChatMock.start('sk-gw-cli');
    const cli = startCli(
      [
        'gateway',
        '--upstream',
        'openai-chat',
        '--base-url',
        mock.baseUrl,
        '--model-map',
        'gemini-*=gpt-gw-test',
        '--api-key-env',
        'GW_TEST_KEY',
      ],
      { GW_TEST_KEY: 'sk-gw-cli' },
    );
    try {
      await cli.waitFor('Ctrl-C stops');
      const out = cli.stdout();
      const baseUrl = /^export GOOGLE_GEMINI_BASE_URL=(\S+)$/m.exec(out)?.[1];
      const apiKey = /^export GEMINI_API_KEY=(\S+)$/m.exec(out)?.[1];
      expect(baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(apiKey).toBeTruthy();
      expect(apiKey).not.toBe('sk-gw-cli');
      expect(out).toContain('~/.gemini/antigravity-cli/settings.json');
      expect(out).toContain('{"modelProvider":"gemini"}');
      expect(out + cli.stderr()).not.toContain('sk-gw-cli');

      const ai = new GoogleGenAI({ apiKey: apiKey as string, httpOptions: { baseUrl: baseUrl as string } });
      const reply = await ai.models.generateContent({ model: 'gemini-2.5-flash', contents: 'say OK' });
      expect(reply.text).toBe('OK');
      expect(mock.requests.at(-1)?.body).toMatchObject({ model: 'gpt-gw-test' });

      cli.child.kill('SIGTERM');
      const run = await cli.done;
      expect(run.code).toBe(0);
      expect(run.stderr).toContain('SIGTERM, closing');
      const port = Number(new URL(baseUrl as string).port);
      expect(await probePort(port)).toBe('ECONNREFUSED');
    } finally {
      cli.child.kill('SIGKILL');
      await mock.close();
    }
  });

  it('a bad --model-map or a missing key is a usage error (2) naming the flag', async () => {
    const badMap = await runCli(
      [
        'gateway',
        '--upstream',
        'openai-chat',
        '--base-url',
        'http://127.0.0.1:9/v1',
        '--model-map',
        'nomodel',
      ],
      {
        OPENAI_API_KEY: 'k',
      },
    );
    expect(badMap.code).toBe(2);
    expect(badMap.stderr).toContain('--model-map');
    const noKey = await runCli(['gateway', '--upstream', 'anthropic', '--base-url', 'http://127.0.0.1:9'], {
      ANTHROPIC_API_KEY: '',
    });
    expect(noKey.code).toBe(2);
    expect(noKey.stderr).toContain('ANTHROPIC_API_KEY');
    const badPort = await runCli(
      ['gateway', '--upstream', 'openai-chat', '--base-url', 'http://127.0.0.1:9/v1', '--port', '70000'],
      {
        OPENAI_API_KEY: 'k',
      },
    );
    expect(badPort.code).toBe(2);
    expect(badPort.stderr).toContain('--port');
  });

  it('--port already in use is one line naming the port, exit 2, no stack trace', async () => {
    const holder = createServer();
    await new Promise<void>((r) => holder.listen(0, '127.0.0.1', r));
    const { port } = holder.address() as AddressInfo;
    try {
      const r = await runCli(
        [
          'gateway',
          '--upstream',
          'openai-chat',
          '--base-url',
          'http://127.0.0.1:9/v1',
          '--port',
          String(port),
        ],
        { OPENAI_API_KEY: 'k' },
      );
      expect(r.code).toBe(2);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stderr).toContain(`127.0.0.1:${port} is already in use`);
      expect(r.stderr).not.toMatch(/\n\s+at /);
    } finally {
      await new Promise<void>((r) => holder.close(() => r()));
    }
  });
});
