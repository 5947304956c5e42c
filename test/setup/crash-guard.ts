/**
 * The suite-wide crash guard (a vitest `setupFiles` entry): an `uncaughtException` or `unhandledRejection` the
 * process sees while a test runs fails that test, in `afterEach`, with the error. A late callback that throws
 * (an emitter handler, a stream callback, a timer of ours) would otherwise crash a user's host while the test
 * that caused it passes. Something seen between tests fails the next test to finish (or the file's
 * `afterAll`), so nothing passes unseen.
 *
 * With `isolate: false` this module runs once per test file in the same worker: the process listeners are
 * installed once (a global flag), the hooks once per file.
 */
import { afterAll, afterEach } from 'vitest';

interface CrashRecord {
  kind: 'uncaughtException' | 'unhandledRejection';
  error: unknown;
}

interface GuardState {
  seen: CrashRecord[];
}

const KEY = Symbol.for('agy-sdk.test.crash-guard');
type GlobalWithGuard = typeof globalThis & { [KEY]?: GuardState };

function state(): GuardState {
  const g = globalThis as GlobalWithGuard;
  let s = g[KEY];
  if (s === undefined) {
    const created: GuardState = { seen: [] };
    process.on('uncaughtException', (error) => created.seen.push({ kind: 'uncaughtException', error }));
    process.on('unhandledRejection', (error) => created.seen.push({ kind: 'unhandledRejection', error }));
    g[KEY] = created;
    s = created;
  }
  return s;
}

function describeError(error: unknown): string {
  if (error instanceof Error) return error.stack ?? `${error.name}: ${error.message}`;
  return String(error);
}

/** Throws (failing the current test or hook) when a crash was seen since the last check. */
function check(where: string): void {
  const s = state();
  if (s.seen.length === 0) return;
  const seen = s.seen.splice(0);
  const text = seen.map((r) => `${r.kind}: ${describeError(r.error)}`).join('\n---\n');
  const err = new Error(`the process saw ${seen.length} crash(es) during ${where}:\n${text}`);
  if (seen.length === 1) err.cause = seen[0]?.error;
  throw err;
}

state();
afterEach((ctx) => check(`"${ctx.task.name}"`));
afterAll(() => check('this file (outside a test)'));
