/**
 * Finding the processes a test started by a marker in their environment: every descendant inherits it, even
 * after `setsid` or re-parenting, so it finds leftovers a pid list would miss (Linux /proc; elsewhere none).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { until } from './fake-agy.js';

/** Live (not zombie) pids whose initial environment holds `name=value`. */
export function pidsWithEnv(name: string, value: string): number[] {
  if (!existsSync('/proc/self/environ')) return [];
  const needle = `${name}=${value}`;
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const env = readFileSync(`/proc/${entry}/environ`, 'latin1').split('\0');
      // A zombie has exited; only its parent's wait is missing.
      if (env.includes(needle) && !/\) Z /.test(readFileSync(`/proc/${entry}/stat`, 'utf8')))
        pids.push(Number(entry));
    } catch {
      // gone meanwhile, or not ours to read: not a leftover of this run
    }
  }
  return pids;
}

/** Polls (bounded; /proc gives no event) until no process holds `name=value`; returns those still alive. */
export async function envSurvivors(name: string, value: string, timeoutMs = 15_000): Promise<number[]> {
  await until(() => pidsWithEnv(name, value).length === 0, timeoutMs);
  return pidsWithEnv(name, value);
}
