// The cassette verbs of the built command, as real processes: `run --record`, `cassette import`, `show`, and
// `doctor --conformance --offline` (the simulator; a real check needs a signed-in agy). Format:
// docs/guides/testing-your-agent.md#cassettes; captures: ../shared/fixtures/agy-real/.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readCassette } from '../../src/testing/cassette/index.js';
import { writeScenario } from '../../src/testing/index.js';
import { AGY_REAL, HAVE_CAPTURES } from '../helpers/captures.js';
import { BUILT, runCli } from '../helpers/cli.js';

let dir = '';
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'agy-sdk-cli-cassette-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe.skipIf(!BUILT)(BUILT ? 'cassette verbs' : 'skipped: run `npm run build` first', () => {
  it('run --record writes a sanitized cassette; show turns it into a page', async () => {
    const out = join(dir, 'rec');
    const env = {
      AGY_SIM_SCENARIO: await writeScenario({ turns: [{ actions: [{ text: 'recorded answer' }] }] }, dir),
      AGY_SIM_STATE_DIR: join(dir, 'state'),
    };
    const run = await runCli(['run', '--offline', '--record', out, 'hello'], env);
    expect(run.code, run.stderr).toBe(0);
    const [name] = readdirSync(out);
    const cassette = readCassette(join(out, name!));
    expect(cassette.records.some((r) => r.type === 'stdin' && r.line.includes('hello'))).toBe(true);
    const html = join(dir, 'run.html');
    const show = await runCli(['show', join(out, name!), '-o', html]);
    expect(show.code, show.stderr).toBe(0);
    expect(readFileSync(html, 'utf8')).toContain('recorded answer');
  });

  it.skipIf(!HAVE_CAPTURES)(
    'cassette import converts a capture; a non-capture is refused with exit 2',
    async () => {
      const file = join(dir, 'pong.cassette.jsonl');
      const ok = await runCli([
        'cassette',
        'import',
        join(AGY_REAL, 'joiomi-playbook-plugin-agy-1.3.1/success-pong.stdout'),
        '-o',
        file,
      ]);
      expect(ok.code, ok.stderr).toBe(0);
      expect(readCassette(file).header.agy.version).toBe('1.3.1');
      const bad = await runCli(['cassette', 'import', join(AGY_REAL, 'configs-hooks-json/SOURCE.txt')]);
      expect(bad.code).toBe(2);
      expect(bad.stderr).toMatch(/is not a session capture/);
    },
  );

  it('show of a malformed cassette exits 2 naming the problem', async () => {
    const bad = await runCli(['show', join(dir, 'missing.jsonl'), '-o', join(dir, 'x.html')]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/missing\.jsonl:0: file: cannot be read/);
    expect(existsSync(join(dir, 'x.html'))).toBe(false);
  });

  it('doctor --conformance --offline passes every fact and lists the cassettes', async () => {
    const out = join(dir, 'conformance');
    const run = await runCli(['doctor', '--conformance', '--offline', '--cassettes', out]);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(run.stdout).toMatch(/pass {3}steps-placeable/);
    expect(run.stdout).not.toMatch(/^ +(FAIL|DRIFT|ERROR) /m);
    expect(readdirSync(out).filter((n) => n.endsWith('.cassette.jsonl'))).toHaveLength(7);
  });
});
