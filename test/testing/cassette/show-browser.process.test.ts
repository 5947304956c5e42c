// `agy-sdk show`'s page in a real headless browser: Debian's Chromium driven by playwright-core. A two-tool turn
// with a denial is recorded on the simulator, rendered with showFile, opened from a file:// URL with every network
// request refused, and read back: no page error, every recorded step on the timeline, the denial naming its
// policy, the long output folded. A screenshot is written to test/.artifacts/show-timeline.png for a person to
// look at. Skips with the reason when no Chromium is installed.
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { policy } from '../../../src/policy/index.js';
import { buildTimeline, readCassette, showFile } from '../../../src/testing/cassette/index.js';
import { useSandboxAgents } from '../../helpers/agents.js';

const CHROMIUM = ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => existsSync(p));
const ARTIFACTS = resolve(import.meta.dirname, '../../.artifacts');
const sb = useSandboxAgents();

const LONG_OUTPUT = Array.from({ length: 60 }, (_, i) => `line ${i + 1} of the listing`).join('\n');

describe.skipIf(!CHROMIUM)(
  CHROMIUM
    ? 'the run page in Chromium'
    : 'skipped: no Chromium (/usr/bin/chromium; apt-get install chromium)',
  () => {
    it('loads without errors or network, and shows every step of a two-tool turn with a denial', async () => {
      const dir = join(sb.box.root, 'cassettes');
      const agent = await sb.agentWith(
        {
          turns: [
            {
              actions: [
                { text: 'Let me look.' },
                { tool: { name: 'list_dir', parameters: { DirectoryPath: '/src' }, output: LONG_OUTPUT } },
                {
                  tool: { name: 'run_command', parameters: { CommandLine: 'rm -rf build' }, output: 'gone' },
                },
                { text: 'The listing is long; the command was refused.' },
              ],
            },
          ],
        },
        {
          record: { dir },
          policies: [policy.deny('run_command', { name: 'no_shell' }), policy.allowAll()],
        },
      );
      const result = await (await agent.chat('tidy up')).result();
      await agent.close();
      expect(result.status).toBe('denied');
      const cassette = readCassette(agent.cassetteFile!);
      const steps = buildTimeline(cassette).turns[0]!.steps;

      mkdirSync(ARTIFACTS, { recursive: true });
      const page = join(ARTIFACTS, 'show-timeline.html');
      writeFileSync(page, showFile(agent.cassetteFile!));

      const { chromium } = await import('playwright-core');
      const profile = await mkdtemp(join(tmpdir(), 'agy-sdk-chromium-'));
      // A fresh profile directory per run (playwright passes it as --user-data-dir).
      const context = await chromium.launchPersistentContext(profile, {
        executablePath: CHROMIUM!,
        viewport: { width: 1100, height: 900 },
        args: [
          '--headless',
          '--no-sandbox',
          '--disable-gpu',
          '--disable-quic',
          '--no-first-run',
          '--disable-background-networking',
          '--disable-component-update',
          '--disable-sync',
        ],
      });
      try {
        const tab = await context.newPage();
        const errors: string[] = [];
        const requests: string[] = [];
        tab.on('pageerror', (e) => errors.push(e.message));
        tab.on('console', (m) => {
          if (m.type() === 'error') errors.push(m.text());
        });
        await tab.route('**/*', (route) => {
          const url = route.request().url();
          if (url.startsWith('file://')) return route.continue();
          requests.push(url);
          return route.abort();
        });
        await tab.goto(`file://${page}`);
        await tab.waitForSelector('section.turn');

        expect(errors).toEqual([]);
        expect(requests).toEqual([]);
        expect(await tab.locator('section.turn').count()).toBe(1);
        expect(await tab.locator('section.turn').getAttribute('data-status')).toBe('denied');
        // Every recorded step is on the timeline, in order.
        const shown = await tab
          .locator('li.step')
          .evaluateAll((els) => els.map((e) => Number(e.getAttribute('data-step-index'))));
        expect(shown).toEqual(steps.map((s) => s.index));
        expect(shown.length).toBeGreaterThanOrEqual(5);
        const titles = await tab.locator('li.step .title').allInnerTexts();
        expect(titles).toEqual(expect.arrayContaining(['list_dir', 'run_command']));
        const denied = tab.locator('li.step.denied');
        expect(await denied.count()).toBe(1);
        expect(await denied.locator('.denial').textContent()).toMatch(/denied by policy no_shell/);
        // The long output folds, and opens.
        const fold = tab.locator('li.step.tool details.fold').first();
        expect(await fold.getAttribute('open')).toBeNull();
        await fold.locator('summary').click();
        expect(await fold.getAttribute('open')).not.toBeNull();
        expect(await fold.locator('pre').isVisible()).toBe(true);
        expect(await fold.locator('pre').textContent()).toContain('line 60 of the listing');
        // Usage per turn is shown.
        expect(await tab.locator('.turn-meta').textContent()).toMatch(/in \d+ · out \d+/);
        await tab.screenshot({ path: join(ARTIFACTS, 'show-timeline.png'), fullPage: true });
        expect(existsSync(join(ARTIFACTS, 'show-timeline.png'))).toBe(true);
      } finally {
        await context.close();
        await rm(profile, { recursive: true, force: true });
      }
    }, 120_000);
  },
);
