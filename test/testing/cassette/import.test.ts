// `cassette import` of hostile captures, in memory: a malformed hook payload is a CassetteError naming the
// file, the line and the field (not a SyntaxError), a very long `.script` imports (no spread into arguments),
// and a bad `rc:` or `sleep:` is refused by line.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CassetteError } from '../../../src/errors.js';
import { importCapture, parseCassette, serializeCassette } from '../../../src/testing/cassette/index.js';

// Made in a hook, not while vitest collects (a `vitest list` must leave nothing behind).
let dir = '';
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'agy-sdk-import-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function caught(fn: () => unknown): CassetteError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(CassetteError);
    return err as CassetteError;
  }
  throw new Error('expected a CassetteError, nothing was thrown');
}

describe('importCapture of hostile captures', () => {
  it('a hook payload that is not JSON names the file, its line and the field', () => {
    const hooks = join(dir, 'hooks');
    mkdirSync(hooks);
    writeFileSync(join(hooks, 'PreToolUse-step1.json'), '{"toolCall":{"name":"x"}}');
    writeFileSync(join(hooks, 'Stop.json'), '{\n  "stop": true,\n  oops\n}');
    const e = caught(() => importCapture(hooks));
    expect([e.file, e.line, e.field]).toEqual([join(hooks, 'Stop.json'), 3, 'request']);
    expect(e.message).toMatch(/is not JSON/);
  });

  it('imports a 200,000-line .script', () => {
    const file = join(dir, 'long.script');
    const lines = ['out:{"event":"init","conversation_id":"c1","init":{}}'];
    for (let i = 0; i < 200_000; i++) lines.push(`out:{"n":${i}}`);
    writeFileSync(file, `${lines.join('\n')}\nrc:0\n`);
    const cassette = importCapture(file);
    expect(cassette.records.filter((r) => r.type === 'stdout')).toHaveLength(200_001);
    expect(parseCassette(serializeCassette(cassette)).records).toHaveLength(cassette.records.length);
  });

  it('refuses an exit code that is not 0–255, and a sleep past any timer', () => {
    const file = join(dir, 'bad.script');
    writeFileSync(file, 'out:x\nrc:-1\n');
    expect([caught(() => importCapture(file)).line, caught(() => importCapture(file)).field]).toEqual([
      2,
      'rc',
    ]);
    writeFileSync(file, 'sleep:1e300\nsleep:1e300\n');
    expect(caught(() => importCapture(file)).field).toBe('sleep');
  });
});
