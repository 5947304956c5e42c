/**
 * A fake agy that ignores SIGTERM (some builds do: only SIGKILL ends them) and starts a grandchild that ignores
 * it too, both in its process group. Each writes its pid to `pidFile`, so a test can name them; every process it
 * starts inherits the caller's environment, so a marker variable finds the short-lived ones too.
 */
import { readFileSync } from 'node:fs';
import { chmod, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pidsWithEnv } from './env-marker.js';
import { killAll, until } from './fake-agy.js';
import { statFields } from './proc.js';

/** Which invocations hang; the others answer at once. */
export type Hangs =
  /** Every invocation, `--version` included. */
  | 'all'
  /** Only print mode's `-p /model` (the conformance slash probe); `--version` answers, anything else exits 1. */
  | 'slash';

/** The fake's path and where it writes its pids. */
export interface StubbornAgy {
  path: string;
  pidFile: string;
}

/** Writes the fake into `dir`. */
export async function stubbornAgy(dir: string, hangs: Hangs): Promise<StubbornAgy> {
  const path = join(dir, 'agy');
  const pidFile = join(dir, 'pids');
  const hang =
    "trap '' TERM\n" +
    `echo $$ >> '${pidFile}'\n` +
    `sh -c "trap '' TERM; echo \\$\\$ >> '${pidFile}'; while :; do sleep 1; done" &\n` +
    'while :; do sleep 1; done\n';
  const body =
    hangs === 'all'
      ? `#!/bin/sh\n${hang}`
      : '#!/bin/sh\n' +
        'if [ "$1" = "--version" ]; then echo "agy version 1.3.1"; exit 0; fi\n' +
        `if [ "$2" = "/model" ]; then\n${hang}fi\n` +
        'echo "fake agy: this fake speaks no stream-json" >&2; exit 1\n';
  await writeFile(path, body);
  await chmod(path, 0o755);
  return { path, pidFile };
}

/** The pids the fake wrote so far. */
export function stubbornPids(fake: StubbornAgy): number[] {
  let text = '';
  try {
    text = readFileSync(fake.pidFile, 'utf8');
  } catch {
    // not written yet
  }
  return text.split('\n').filter(Boolean).map(Number);
}

/** True while `pid` runs (a zombie has exited: only its parent's wait is missing). */
export function running(pid: number): boolean {
  const fields = statFields(pid);
  return fields !== undefined && fields[0] !== 'Z';
}

/** Waits (bounded: /proc gives no event) until none of `pids` runs; returns those still running. */
export async function stillRunning(pids: number[], timeoutMs = 15_000): Promise<number[]> {
  await until(() => pids.every((pid) => !running(pid)), timeoutMs);
  return pids.filter(running);
}

/** Kills whatever a failed test left: the processes holding `name=value`. */
export function killMarked(name: string, value: string): void {
  killAll(pidsWithEnv(name, value));
}
