// The host's shared /proc scan (process/host-scan.ts): what one pass finds (marked processes, descendants),
// that concurrent requests share a pass while a later request gets a later one, and that sampling tells a
// watcher each new descendant once and stops when told. Real processes (sh, sleep), Linux only.
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, expect, it, onTestFinished } from 'vitest';
import type { FoundPair } from '../../../src/connection/process/control-protocol.js';
import { HostScan, scanProc } from '../../../src/connection/process/host-scan.js';
import { MARK_VAR } from '../../../src/platform/index.js';
import { canWalkTrees, walkTree } from '../../../src/platform/linux-proc.js';
import { until } from '../../helpers/fake-agy.js';

const linux = process.platform === 'linux';

/** `sh` with a marked environment and one `sleep` child; both killed when the test ends. */
async function markedTree(): Promise<{ sh: ChildProcess; sleep: number; mark: string }> {
  const mark = randomBytes(8).toString('hex');
  const sh = spawn('sh', ['-c', 'sleep 1000 & echo $!; wait'], {
    env: { PATH: process.env.PATH, [MARK_VAR]: mark },
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  const sleep = await new Promise<number>((resolve) =>
    sh.stdout!.once('data', (c) => resolve(Number(String(c)))),
  );
  // `$!` is known as soon as sh forks: wait until the child has exec'd sleep, or a scan may read its /proc
  // entry mid-exec (an empty environ) and miss the marker.
  const execd = await until(() => {
    try {
      return readFileSync(`/proc/${sleep}/cmdline`, 'utf8').startsWith('sleep');
    } catch {
      return false;
    }
  });
  onTestFinished(() => {
    for (const pid of [sleep, sh.pid!]) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // gone
      }
    }
  });
  if (!execd) throw new Error(`sleep (pid ${sleep}) did not start within 15 s`);
  return { sh, sleep, mark };
}

const pids = (found: FoundPair[]) => found.map(([pid]) => pid).sort((a, b) => a - b);

describe.skipIf(!linux)('the host-wide /proc scan', () => {
  it('finds every process holding a marker, and every descendant of a root', async () => {
    const { sh, sleep, mark } = await markedTree();
    const snap = await scanProc();
    expect(pids(snap.marked(mark))).toEqual([sh.pid!, sleep].sort((a, b) => a - b));
    expect(pids(snap.descendants(sh.pid!))).toEqual([sleep]);
    expect(snap.marked('not-a-mark')).toEqual([]);
    // The start time is recorded, so a reused pid is told apart.
    for (const [, start] of snap.marked(mark)) expect(start).toMatch(/^\d+$/);
  });

  it('concurrent requests share one pass; a request made while one runs gets the next', async () => {
    const scan = new HostScan();
    const a = scan.snapshot();
    const b = scan.snapshot();
    const c = scan.snapshot();
    expect(b).toBe(c);
    expect(b).not.toBe(a);
    await Promise.all([a, b, c]);
    expect(scan.passes).toBe(2);
    await scan.snapshot();
    expect(scan.passes).toBe(3);
  });

  it('sampling tells a watcher each new descendant once, and nothing runs after it stops', async () => {
    const { sh, sleep } = await markedTree();
    const scan = new HostScan();
    const told: number[][] = [];
    const stop = scan.sample({ root: sh.pid!, onFound: (found) => told.push(pids(found)) });
    expect(scan.sampling).toBe(true);
    expect(await until(() => told.length > 0)).toBe(true);
    // A second sample finds the same process: it is not told again.
    const after = scan.passes;
    expect(await until(() => scan.passes >= after + 1)).toBe(true);
    expect(told).toEqual([[sleep]]);
    stop();
    expect(scan.sampling).toBe(false);
    const stopped = scan.passes;
    await new Promise((r) => setTimeout(r, 1500));
    expect(scan.passes).toBe(stopped);
  });

  it('the tree walk finds what the full pass finds, a child forked by another thread included', async () => {
    expect(canWalkTrees()).toBe(true);
    // A Node process whose worker thread spawns `sleep` (libuv forks from the calling thread, so the child is
    // listed under the worker's task, not the main one), and whose main thread spawns `sh` → `sleep`.
    const script = `
      const { Worker } = require('node:worker_threads');
      const { spawn } = require('node:child_process');
      spawn('sh', ['-c', 'sleep 1000 & wait'], { stdio: 'ignore' });
      new Worker("require('node:child_process').spawn('sleep', ['1000'], { stdio: 'ignore' }); setInterval(() => {}, 1000);", { eval: true });
      setInterval(() => {}, 1000);`;
    const root = spawn(process.execPath, ['-e', script], { stdio: 'ignore', detached: true });
    onTestFinished(() => {
      try {
        process.kill(-root.pid!, 'SIGKILL');
      } catch {
        // gone
      }
    });
    // Three descendants: sh, its sleep, and the worker's sleep.
    let full: FoundPair[] = [];
    for (const deadline = Date.now() + 15_000; Date.now() < deadline; ) {
      full = (await scanProc()).descendants(root.pid!);
      if (full.length === 3) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(full).toHaveLength(3);
    expect(pids(await walkTree(root.pid!))).toEqual(pids(full));
    expect((await walkTree(root.pid!)).map(([, start]) => start)).toEqual(
      expect.arrayContaining(full.map(([, s]) => s)),
    );
    // A gone root has no tree.
    expect(await walkTree(2 ** 22 + 1)).toEqual([]);
  });

  it("the tree walk yields to the event loop between its reads, so a turn's events never wait behind it", async () => {
    // This worker has several threads: its walk is several reads, each on its own turn of the event loop.
    let ticks = 0;
    const tick = (): void => {
      ticks++;
      if (!done) setImmediate(tick);
    };
    let done = false;
    setImmediate(tick);
    const tree = await walkTree(process.pid);
    done = true;
    expect(Array.isArray(tree)).toBe(true);
    expect(ticks).toBeGreaterThan(1);
  });

  it('many sampled sessions share one full pass, and each watcher is still told its own descendants', async () => {
    const trees = [await markedTree(), await markedTree()];
    const scan = new HostScan();
    const told = new Map<number, number[]>();
    // More watchers than walk their own trees (8): the full pass serves them all.
    const stops = Array.from({ length: 10 }, (_, i) => {
      const tree = trees[i % 2]!;
      return scan.sample({
        root: tree.sh.pid!,
        onFound: (found) => told.set(i, [...(told.get(i) ?? []), ...pids(found)]),
      });
    });
    expect(await until(() => told.size === 10)).toBe(true);
    for (const [i, found] of told) expect(found).toEqual([trees[i % 2]!.sleep]);
    for (const stop of stops) stop();
  });
});
