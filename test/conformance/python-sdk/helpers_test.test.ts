/**
 * Google's `triggers/helpers_test.py` on agy-sdk's public API: `every` and `onFileChange`, started the way the
 * Agent's trigger runner starts them (`start(ctx)` with a `TriggerContext`, `stop()`).
 *
 * Source: github.com/lovicho/antigravity-sdk-python, google/antigravity/triggers/helpers_test.py at commit
 * 63b1ebe404f731da84c20ec126851498492df279 (`google-antigravity` 0.1.14). Differences by design:
 * docs/python-parity.md ("Where behaviour differs").
 *
 * Not applicable (1), not ported: OnFileChangeTest.test_on_file_change_import_error, the error when Python's
 * optional `watchfiles` package is missing; agy-sdk's watcher (`chokidar`) is a dependency, always installed.
 */
import { mkdtemp, realpath, rm, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  ConfigError,
  every,
  type FileChange,
  onFileChange,
  type TriggerContext,
} from '../../../src/index.js';
import { quietLogger } from './kit.js';

const context = (): TriggerContext => ({
  send: async () => {},
  signal: new AbortController().signal,
  logger: quietLogger,
});

describe('EveryTest (helpers_test.py)', () => {
  it('EveryTest.test_every_calls_callback_on_interval (helpers_test.py)', async () => {
    let calls = 0;
    let twice!: () => void;
    const ranTwice = new Promise<void>((resolve) => {
      twice = resolve;
    });
    const trigger = every('10ms', () => {
      calls++;
      if (calls === 2) twice();
    });
    await trigger.start(context());
    await ranTwice;
    await trigger.stop();
    expect(calls).toBeGreaterThanOrEqual(2);
  });

  it('EveryTest.test_every_rejects_non_positive_interval (helpers_test.py)', () => {
    // Differs by design: a ConfigError naming the field (`every.interval`), where Python raises ValueError.
    expect(() => every(0, () => {})).toThrow(ConfigError);
    expect(() => every(-1, () => {})).toThrow(ConfigError);
    expect(() => every('0s', () => {})).toThrow(ConfigError);
  });

  it('EveryTest.test_every_sets_name (helpers_test.py)', () => {
    // Differs by design: the callback's name (`every(cb)`) or the interval as written, where Python names
    // `every_300s`.
    expect(every('300s', async function cb() {}).name).toBe('every(cb)');
    expect(every('300s', async () => {}).name).toBe('every(300s)');
  });
});

describe('OnFileChangeTest (helpers_test.py)', () => {
  it('OnFileChangeTest.test_on_file_change_sets_name (helpers_test.py)', () => {
    // Differs by design: the name carries the watched path, absolute, where Python keeps the base name.
    expect(onFileChange('/tmp/config.yaml', () => {}).name).toBe('onFileChange(/tmp/config.yaml)');
  });

  it('OnFileChangeTest.test_on_file_change_success (helpers_test.py)', { timeout: 60_000 }, async () => {
    const dir = await realpath(await mkdtemp(path.join(tmpdir(), 'agy-sdk-conformance-watch-')));
    const [one, two, three] = ['file1.txt', 'file2.txt', 'file3.txt'].map((f) => path.join(dir, f)) as [
      string,
      string,
      string,
    ];
    await writeFile(two, 'v1');
    await writeFile(three, 'v1');
    const seen: FileChange[] = [];
    let done!: () => void;
    const all = new Promise<void>((resolve) => {
      done = resolve;
    });
    const trigger = onFileChange(dir, (changes) => {
      seen.push(...changes);
      if (['added', 'modified', 'deleted'].every((kind) => seen.some((c) => c.kind === kind))) done();
    });
    try {
      await trigger.start(context());
      await writeFile(one, 'new');
      await writeFile(two, 'v2');
      await unlink(three);
      await all;
    } finally {
      await trigger.stop();
      await rm(dir, { recursive: true, force: true });
    }
    expect(seen).toEqual(
      expect.arrayContaining([
        { kind: 'added', path: one },
        { kind: 'modified', path: two },
        { kind: 'deleted', path: three },
      ]),
    );
  });
});
