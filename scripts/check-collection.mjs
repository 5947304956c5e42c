#!/usr/bin/env node
// Runs vitest as a clone without `../shared` would, and fails when anything it started outlives it.
//
// `vitest list` collects every test file: module bodies and `describe` bodies run (even of skipped blocks),
// hooks and tests do not. So a file that reads `../shared` while collecting fails here, and a file that starts a
// peer (a redis-server, a simulator) or makes a temp dir outside a hook leaves it behind here. With `--fast`, the
// fast project also runs with `../shared` hidden.
//
// How `../shared` is hidden: `AGY_SDK_SHARED_DIR` names a folder that does not exist; every test resolves the
// shared folder through test/helpers/shared-dir.ts, which honours it (CI's copy of shared/ is read-only, so it
// cannot be renamed away). `AGY_SDK_TEST_REDIS_URL` is dropped, so the fleet tests would start their own Redis.
//
// What counts as left behind, once the run has exited (polled up to 10 s, /proc gives no event):
//   - a live process in the run's process group, or whose environment holds the run's marker variable or its
//     private TMPDIR (kept by children started with a trimmed environment, such as the host's supervisor);
//   - anything in that private TMPDIR (every mkdtemp of the suite lands there), or new at the checkout's top
//     level (a path joined to an empty directory name lands in the working directory).
// Leftover processes are SIGKILLed and the TMPDIR removed after they are reported, so a failing check cleans up.
//
//   node scripts/check-collection.mjs [--fast]   exit 1 on a collection failure, a failed test or a leftover
// Needs the build (`npm run build`): some modules resolve built scripts when they load.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '..');
const VITEST = join(ROOT, 'node_modules/vitest/vitest.mjs');
const MARK = 'AGY_SDK_COLLECTION_CHECK';
const SETTLE_MS = 10_000;

/** Live (not zombie) pids in process group `pgid`, or whose environment holds one of `needles`. */
export function survivors(pgid, needles) {
  if (!existsSync('/proc/self/stat')) return [];
  const found = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // Fields after the command's closing parenthesis: state, ppid, pgrp, …
      const [state, , pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (state === 'Z') continue;
      const env = readFileSync(`/proc/${entry}/environ`, 'latin1').split('\0');
      if (Number(pgrp) === pgid || needles.some((n) => env.includes(n))) found.push(Number(entry));
    } catch {
      // gone meanwhile, or not ours to read (another user's): not a leftover of this run
    }
  }
  return found;
}

function commandOf(pid) {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').trim();
  } catch {
    return '(gone)';
  }
}

/**
 * Runs vitest with `args` in its own process group; resolves with its exit status, the group id and how many
 * lines it wrote to stdout when `quiet` (a listing: one line per test, counted instead of printed).
 */
function runVitest(args, env, quiet) {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [VITEST, ...args], {
      cwd: ROOT,
      env,
      stdio: ['ignore', quiet ? 'pipe' : 'inherit', 'inherit'],
      detached: true,
    });
    let lines = 0;
    child.stdout?.on('data', (chunk) => {
      for (const byte of chunk) if (byte === 10) lines += 1;
    });
    child.once('error', reject);
    child.once('close', (code, signal) => resolvePromise({ code, signal, pgid: child.pid, lines }));
  });
}

/** One vitest run with `../shared` hidden; returns the problems found (empty when clean). */
async function check(label, args, quiet) {
  const tmp = mkdtempSync(join(tmpdir(), 'agy-sdk-collection-'));
  const mark = `${process.pid}-${Date.now()}`;
  const env = {
    ...process.env,
    AGY_SDK_SHARED_DIR: join(tmp, 'no-shared-here'),
    TMPDIR: tmp,
    [MARK]: mark,
  };
  delete env.AGY_SDK_TEST_REDIS_URL;
  const problems = [];
  try {
    console.log(`check-collection: ${label} (vitest ${args.join(' ')}, ../shared hidden)`);
    const before = new Set(readdirSync(ROOT));
    const { code, signal, pgid, lines } = await runVitest(args, env, quiet);
    // Vitest runs in the checkout: a test that writes relative to its working directory leaves it there.
    for (const name of readdirSync(ROOT))
      if (!before.has(name)) problems.push(`${label}: left in the checkout: ${name}`);
    if (code !== 0) problems.push(`${label}: vitest exited with ${code ?? signal}`);
    else if (quiet) console.log(`check-collection: ${label}: ${lines} tests listed`);
    const needles = [`${MARK}=${mark}`, `TMPDIR=${tmp}`];
    const deadline = Date.now() + SETTLE_MS;
    let left = survivors(pgid, needles);
    while (left.length > 0 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 200));
      left = survivors(pgid, needles);
    }
    for (const pid of left) problems.push(`${label}: process ${pid} outlived the run: ${commandOf(pid)}`);
    for (const pid of left) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
    for (const name of readdirSync(tmp)) problems.push(`${label}: left in its TMPDIR: ${name}`);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
  return problems;
}

const fast = process.argv.includes('--fast');
const problems = await check('collection', ['list'], true);
if (fast) problems.push(...(await check('fast project', ['run', '--project', 'fast'], false)));
for (const p of problems) console.error(`check-collection: ${p}`);
if (problems.length > 0) process.exit(1);
console.log(`check-collection: clean (${fast ? 'collection and fast project' : 'collection'})`);
