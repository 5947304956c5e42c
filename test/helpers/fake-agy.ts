/**
 * Helpers around `test/fixtures/fake-agy.mjs`: where it is, and what it recorded (the session marker it
 * inherited and every pid it left behind).
 */
import { chmodSync, copyFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { marked } from '../../src/platform/linux-proc.js';
import { alive } from './sandbox.js';

export const FAKE_AGY = join(import.meta.dirname, '../fixtures/fake-agy.mjs');

/**
 * A copy of the fake agy in `dir`: a binary path no earlier `agy --version` probe answered for. The answer is
 * cached per path for the life of the process, and test files share a worker (vitest `isolate: false`).
 */
export function freshFakeAgy(dir: string): string {
  const copy = join(dir, 'fake-agy.mjs');
  copyFileSync(FAKE_AGY, copy);
  chmodSync(copy, 0o755);
  return copy;
}

/** What the fake agy wrote to its pid file, by kind (`mark`, `child`, `daemon`, `probe`, `escaped`). */
export function recorded(file: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  let text = '';
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return out;
  }
  for (const line of text.split('\n')) {
    const [kind, value] = line.split(' ');
    if (!kind || value === undefined || value === '') continue;
    out.set(kind, [...(out.get(kind) ?? []), value]);
  }
  return out;
}

/** The pids of one kind. */
export function pidsOf(file: string, kind: string): number[] {
  return (recorded(file).get(kind) ?? []).map(Number);
}

/** Polls (bounded) until `check` holds; the pid file and /proc give no event to await. */
export async function until(check: () => boolean, timeoutMs = 15_000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (check()) return true;
    if (Date.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Live processes holding the marker, once none is left or after `timeoutMs` (generous: a loaded box). */
export async function markedSurvivors(mark: string, timeoutMs = 15_000): Promise<number[]> {
  await until(() => marked(mark).length === 0, timeoutMs);
  return marked(mark).map((f) => f.pid);
}

/** Kills leftovers a failed test (or the boundary test) leaves, so they never outlive the run. */
export function killAll(pids: number[]): void {
  for (const pid of pids) {
    if (!alive(pid)) continue;
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone
    }
  }
}
