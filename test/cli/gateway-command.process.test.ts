// `agy-sdk gateway` as a child process in front of a mock OpenAI Chat upstream; a real `@google/genai` client
// uses the printed exports; SIGTERM shuts it down gracefully.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { GoogleGenAI } from '@google/genai';
import { describe, expect, it } from 'vitest';
import { BUILT, runCli, startCli } from '../helpers/cli.js';
import { OpenAiChatMock } from '../helpers/gateway/mocks/openai-chat.js';
import { replayUpstream, responsesSse } from '../helpers/gateway/provider-recordings.js';
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

  it('--headers-hold-ms reaches the gateway: an upstream error before any content is the HTTP 429 by default, a 200 and an in-stream error with 0 (openai/openai-error.1.chunks.txt)', async () => {
    // The recorded Responses stream: the upstream's 200, then `insufficient_quota` before any content.
    const upstream = await replayUpstream(responsesSse('openai/openai-error.1.chunks.txt'));
    /** The status a streaming request gets through `agy-sdk gateway …extra`, and what the body said. */
    const statusThrough = async (extra: string[]): Promise<{ status: number; body: string }> => {
      const cli = startCli(
        ['gateway', '--upstream', 'openai-responses', '--base-url', `${upstream.url}/v1`, ...extra],
        { OPENAI_API_KEY: 'sk-hold-cli' },
      );
      try {
        await cli.waitFor('Ctrl-C stops');
        const baseUrl = /^export GOOGLE_GEMINI_BASE_URL=(\S+)$/m.exec(cli.stdout())?.[1];
        const token = /^export GEMINI_API_KEY=(\S+)$/m.exec(cli.stdout())?.[1];
        const res = await fetch(`${baseUrl}/v1beta/models/gpt-5-nano:streamGenerateContent?alt=sse`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-goog-api-key': token ?? '' },
          body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'hi' }] }] }),
        });
        const body = await res.text();
        cli.child.kill('SIGTERM');
        expect((await cli.done).code).toBe(0);
        return { status: res.status, body };
      } finally {
        cli.child.kill('SIGKILL');
      }
    };
    try {
      const held = await statusThrough([]);
      expect(held.status).toBe(429);
      expect(held.body).toContain('quota');
      const unheld = await statusThrough(['--headers-hold-ms', '0']);
      expect(unheld.status).toBe(200);
      expect(unheld.body).toMatch(/^data: .*"error"/m);
      expect(unheld.body).toContain('quota');
    } finally {
      await upstream.close();
    }
  });

  it('a bad --headers-hold-ms is a usage error (2) naming the flag', async () => {
    const bad = ['soon', '', '1e3', '2147483648'];
    const runs = await Promise.all(
      bad.map((value) =>
        runCli(
          [
            'gateway',
            '--upstream',
            'openai-chat',
            '--base-url',
            'http://127.0.0.1:9/v1',
            '--headers-hold-ms',
            value,
          ],
          { OPENAI_API_KEY: 'k' },
        ),
      ),
    );
    runs.forEach((r, n) => {
      expect(r.code, bad[n]).toBe(2);
      expect(r.stderr, bad[n]).toContain('--headers-hold-ms');
      expect(r.stderr, bad[n]).not.toMatch(/\n\s+at /);
    });
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
