import { mkdir, mkdtemp, realpath, rm, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  type FileChange,
  onFileChange,
  type TriggerContext,
  type TriggerObject,
} from '../../src/triggers/index.js';
import { spyLogger } from '../helpers/hooks.js';

let dir: string;
let trigger: TriggerObject | undefined;

beforeEach(async () => {
  dir = await realpath(await mkdtemp(path.join(tmpdir(), 'agy-watch-')));
});
afterEach(async () => {
  await trigger?.stop();
  trigger = undefined;
  await rm(dir, { recursive: true, force: true });
});

function context() {
  const logger = spyLogger();
  const ctx: TriggerContext = { send: vi.fn(async () => {}), signal: new AbortController().signal, logger };
  return { ctx, logger };
}

/** Collects batches; `next(predicate)` resolves with the changes once a batch satisfies the predicate. */
function collector() {
  const seen: FileChange[] = [];
  const waiters: { test: (all: FileChange[]) => boolean; resolve: (all: FileChange[]) => void }[] = [];
  const batches: FileChange[][] = [];
  const fn = (changes: FileChange[]) => {
    batches.push(changes);
    seen.push(...changes);
    for (const w of [...waiters]) {
      if (w.test(seen)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve([...seen]);
      }
    }
  };
  const until = (test: (all: FileChange[]) => boolean) =>
    new Promise<FileChange[]>((resolve) => {
      if (test(seen)) resolve([...seen]);
      else waiters.push({ test, resolve });
    });
  return { fn, until, batches };
}

const has = (kind: FileChange['kind'], p: string) => (all: FileChange[]) =>
  all.some((c) => c.kind === kind && c.path === p);

describe('onFileChange (real file system)', { timeout: 60_000 }, () => {
  it('reports added, modified and deleted files with absolute paths', async () => {
    const c = collector();
    const { ctx, logger } = context();
    trigger = onFileChange(dir, c.fn, { debounceMs: 30 });
    await trigger.start(ctx);
    // A stage that sees nothing in 20 s fails with what was seen and what the watcher logged, not a bare
    // timeout (this test once timed out in a loaded CI run with no clue which stage hung).
    const stage = async (what: string, test: (all: FileChange[]) => boolean, poke?: () => Promise<void>) => {
      let timer: NodeJS.Timeout | undefined;
      let pokes: NodeJS.Timeout | undefined;
      let poking: Promise<void> = Promise.resolve();
      try {
        return await Promise.race([
          c.until(test),
          new Promise<never>((_, reject) => {
            // chokidar drops a change that lands inside its per-file throttle window, which a loaded event
            // loop can stretch; a file written again is reported again, which is the behaviour under test.
            if (poke) pokes = setInterval(() => (poking = poke()), 2_000);
            timer = setTimeout(() => {
              const logged = JSON.stringify(
                vi.mocked(logger.error).mock.calls.map((call) => String(call[0])),
              );
              reject(new Error(`no ${what} after 20 s; seen ${JSON.stringify(c.batches)}; logged ${logged}`));
            }, 20_000);
          }),
        ]);
      } finally {
        clearTimeout(timer);
        clearInterval(pokes);
        await poking; // no write may land after the next stage has begun
      }
    };

    const file = path.join(dir, 'a.txt');
    await writeFile(file, 'one');
    await stage('added', has('added', file));

    let n = 0;
    const modify = () => writeFile(file, `two, longer ${++n}`);
    await modify();
    await stage('modified', has('modified', file), modify);

    await unlink(file);
    const all = await stage('deleted', has('deleted', file));
    for (const change of all) expect(path.isAbsolute(change.path)).toBe(true);
  });

  it('debounces changes into one batch, coalesced per path', async () => {
    const c = collector();
    // Wide enough that three back-to-back writes on a loaded machine still land in one window.
    trigger = onFileChange(dir, c.fn, { debounceMs: 2_000 });
    await trigger.start(context().ctx);
    const a = path.join(dir, 'a.txt');
    const b = path.join(dir, 'b.txt');
    await writeFile(a, '1');
    await writeFile(b, '1');
    await writeFile(a, '2');
    const all = await c.until((seen) => has('added', a)(seen) && has('added', b)(seen));
    expect(c.batches).toHaveLength(1);
    expect(all.filter((x) => x.path === a)).toEqual([{ kind: 'added', path: a }]);
    expect(c.batches[0]).toEqual([...c.batches[0]!].sort((x, y) => x.path.localeCompare(y.path)));
  });

  it('ignores existing files by default; ignoreInitial:false reports them', async () => {
    const existing = path.join(dir, 'existing.txt');
    await writeFile(existing, 'x');
    const c = collector();
    trigger = onFileChange(dir, c.fn, { debounceMs: 20, ignoreInitial: false });
    await trigger.start(context().ctx);
    await c.until(has('added', existing));

    await trigger.stop();
    const quiet = collector();
    trigger = onFileChange(dir, quiet.fn, { debounceMs: 20 });
    await trigger.start(context().ctx);
    const fresh = path.join(dir, 'fresh.txt');
    await writeFile(fresh, 'y');
    const all = await quiet.until(has('added', fresh));
    expect(all.some((x) => x.path === existing)).toBe(false);
  });

  it('watches nested directories and a single file path', async () => {
    const sub = path.join(dir, 'sub');
    await mkdir(sub);
    const c = collector();
    trigger = onFileChange(dir, c.fn, { debounceMs: 20 });
    await trigger.start(context().ctx);
    const nested = path.join(sub, 'n.txt');
    await writeFile(nested, 'n');
    await c.until(has('added', nested));
    await trigger.stop();

    const single = collector();
    trigger = onFileChange(nested, single.fn, { debounceMs: 20 });
    await trigger.start(context().ctx);
    await writeFile(nested, 'changed content');
    await single.until(has('modified', nested));
  });

  it('logs a failing callback and keeps watching; passes ctx to the callback', async () => {
    const { ctx, logger } = context();
    const logged = new Promise<void>((resolve) => logger.error.mockImplementation(() => resolve()));
    let calls = 0;
    let resolveSecond: (c: TriggerContext) => void = () => {};
    const second = new Promise<TriggerContext>((resolve) => {
      resolveSecond = resolve;
    });
    trigger = onFileChange(
      dir,
      (_changes, cbCtx) => {
        calls++;
        if (calls === 1) throw new Error('handler failed');
        resolveSecond(cbCtx);
      },
      { debounceMs: 20 },
    );
    await trigger.start(ctx);
    await writeFile(path.join(dir, 'one.txt'), '1');
    await logged;
    await writeFile(path.join(dir, 'two.txt'), '2');
    expect(await second).toBe(ctx);
    expect(logger.error.mock.calls[0]?.[0]).toContain('handler failed');
  });
});
