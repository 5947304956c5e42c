// examples/18-ag-ui-chat.mjs in a real browser: the example serves its chat page on 127.0.0.1 (`--serve`,
// offline on the simulator), and Debian's Chromium, driven by playwright-core, types a prompt, sees the
// answer stream in with the tool call, answers the approval in the page and sees the turn end. Then the
// example is stopped with SIGTERM and nothing it started may be left. Skips when no Chromium is installed.
import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { envSurvivors } from '../helpers/env-marker.js';

const CHROMIUM = ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => existsSync(p));
const root = resolve(import.meta.dirname, '../..');
const built = existsSync(join(root, 'dist/ag-ui/index.js'));
const marker = randomUUID();

let scratch: string;
beforeAll(() => {
  scratch = mkdtempSync(join(tmpdir(), 'agy-sdk-ag-ui-chat-'));
});
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** Starts the example with `--serve`; resolves with the child and the page URL it printed. */
function serveExample(): Promise<{ child: ChildProcess; url: string; output: () => string }> {
  const env: NodeJS.ProcessEnv = { ...process.env, AGY_SDK_EXAMPLE_RUN: marker, AGY_SIM_STATE_DIR: scratch };
  for (const key of ['AGY_PATH', 'AGY_SIM_SCENARIO']) delete env[key];
  const child = spawn(process.execPath, [join(root, 'examples/18-ag-ui-chat.mjs'), '--serve'], {
    cwd: root,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  return new Promise((done, fail) => {
    const onData = (chunk: Buffer): void => {
      out += chunk.toString('utf8');
      const url = /^page: (http:\/\/127\.0\.0\.1:\d+\/[0-9a-f]+\/)$/m.exec(out)?.[1];
      if (url) done({ child, url, output: () => out });
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', (chunk: Buffer) => {
      out += chunk.toString('utf8');
    });
    child.on('error', fail);
    child.on('exit', (code) => fail(new Error(`the example exited ${code} before serving:\n${out}`)));
  });
}

describe.skipIf(!CHROMIUM || !built)(
  CHROMIUM
    ? 'the AG-UI chat page in Chromium'
    : 'skipped: no Chromium (/usr/bin/chromium; apt-get install chromium)',
  () => {
    it('a typed prompt streams the answer with its tool call; the approval is answered in the page', async () => {
      const { child, url, output } = await serveExample();
      const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
      const { chromium } = await import('playwright-core');
      const profile = mkdtempSync(join(scratch, 'chromium-'));
      const context = await chromium.launchPersistentContext(profile, {
        executablePath: CHROMIUM!,
        args: [
          '--headless',
          '--no-sandbox',
          '--disable-gpu',
          '--no-first-run',
          '--disable-background-networking',
        ],
      });
      try {
        const tab = await context.newPage();
        const errors: string[] = [];
        tab.on('pageerror', (e) => errors.push(e.message));
        tab.on('console', (m) => {
          if (m.type() === 'error') errors.push(m.text());
        });
        await tab.goto(url);
        await tab.fill('#prompt', 'What is in this workspace?');
        await tab.click('form button');
        const approval = tab.locator('.approval');
        await approval.waitFor();
        expect(await tab.locator('.you').textContent()).toBe('you: What is in this workspace?');
        expect(await tab.locator('.agent').first().textContent()).toBe('Let me look at the workspace.');
        expect(await tab.locator('.tool').first().textContent()).toBe(
          '→ tool run_command {"CommandLine":"ls"}',
        );
        expect(await approval.textContent()).toContain('Allow run_command `ls`?');
        await approval.locator('button', { hasText: 'Approve' }).click();
        await tab.locator('.status').waitFor();
        expect(await tab.locator('.status').textContent()).toBe('status: success');
        expect(await tab.locator('.result').textContent()).toBe('✓ README.md\npackage.json');
        expect(await tab.locator('.agent').last().textContent()).toBe(
          'The workspace holds README.md and package.json.',
        );
        expect(await approval.textContent()).toContain('approved');
        expect(errors).toEqual([]);
      } finally {
        await context.close();
        rmSync(profile, { recursive: true, force: true });
        child.kill('SIGTERM');
      }
      expect(await exited, output()).toBe(0);
      expect(await envSurvivors('AGY_SDK_EXAMPLE_RUN', marker)).toEqual([]);
    }, 120_000);
  },
);
