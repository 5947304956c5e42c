// `writeScenario` without a directory leaves nothing behind: the private temp directory it made is removed
// when the process exits (README-style programs never removed it: every run left one in the temp dir), also
// when the program removed it first; a directory the caller named is the caller's and stays.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureSimulatorBuilt, SIM_MAIN } from '../../helpers/sim-process.js';

const PATH_MODULE = pathToFileURL(join(dirname(SIM_MAIN), 'path.js')).href;
// Made by a hook, not while vitest collects the file (a `vitest list` would leave it behind).
let own: string;
beforeAll(() => {
  own = mkdtempSync(join(tmpdir(), 'agy-sdk-write-scenario-'));
});
beforeAll(ensureSimulatorBuilt, 120_000);
afterAll(() => rmSync(own, { recursive: true, force: true }));

/** Runs `body` in a fresh Node process with `writeScenario` imported; returns its stdout lines and status. */
function run(body: string): { lines: string[]; status: number | null; stderr: string } {
  const script = `import { writeScenario } from ${JSON.stringify(PATH_MODULE)};\n${body}`;
  const out = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
  return { lines: out.stdout.trim().split('\n'), status: out.status, stderr: out.stderr };
}

describe('writeScenario temp directories', () => {
  it('removes the directories it made when the process exits, and keeps one the caller named', () => {
    const { lines, status, stderr } = run(`
      const a = await writeScenario({ turns: [] });
      const b = await writeScenario({ turns: [{ actions: [{ text: 'hi' }] }] });
      const c = await writeScenario({ turns: [] }, ${JSON.stringify(own)});
      const { existsSync } = await import('node:fs');
      console.log(a); console.log(b); console.log(c); console.log(existsSync(a) && existsSync(b));
    `);
    expect(stderr).toBe('');
    expect(status).toBe(0);
    const [a, b, c, existedWhileRunning] = lines;
    expect(existedWhileRunning).toBe('true');
    expect(existsSync(dirname(a!))).toBe(false);
    expect(existsSync(dirname(b!))).toBe(false);
    expect(dirname(c!)).toBe(own);
    expect(existsSync(c!)).toBe(true);
  });

  it('exits cleanly when the program removed its directory first', () => {
    const { lines, status, stderr } = run(`
      const { rm } = await import('node:fs/promises');
      const { dirname } = await import('node:path');
      const a = await writeScenario({ turns: [] });
      await rm(dirname(a), { recursive: true, force: true });
      console.log(a);
    `);
    expect(stderr).toBe('');
    expect(status).toBe(0);
    expect(existsSync(dirname(lines[0]!))).toBe(false);
  });
});
