/**
 * Comparing the simulator's output with real agy captures by shape (test/testing/simulator/shapes-*.process.test.ts):
 * the capture files, a line's shape, and what must match per line.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { TestContext } from 'vitest';
import { AGY_REAL } from './captures.js';

/** A capture file's text; skips the test (with the reason) when the fixtures are not there. */
export function capture(ctx: TestContext, file: string): string {
  const path = join(AGY_REAL, file);
  if (!existsSync(path)) ctx.skip(`agy-real capture ${file} is absent (../shared/fixtures not checked out)`);
  return readFileSync(path, 'utf8');
}

/** A `.script` capture (agy-real/littlebearapps-untether-agy-1.3.1/SOURCE.txt): its stdout lines, stderr, exit code. */
export function script(ctx: TestContext, file: string) {
  const entries = capture(ctx, file)
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => ({ kind: l.slice(0, l.indexOf(':')), text: l.slice(l.indexOf(':') + 1) }));
  return {
    out: entries.filter((e) => e.kind === 'out').map((e) => JSON.parse(e.text) as Record<string, unknown>),
    err: entries.filter((e) => e.kind === 'err').map((e) => e.text),
    rc: Number(entries.find((e) => e.kind === 'rc')?.text),
  };
}

/**
 * A value's shape: objects become their sorted keys with the shapes of their values, arrays the distinct
 * shapes of their elements, anything else its type. Values (ids, text, numbers) do not matter.
 */
export function shape(value: unknown): unknown {
  if (value === null) return 'null';
  if (Array.isArray(value)) {
    const distinct = new Map<string, unknown>();
    for (const element of value) {
      const s = shape(element);
      distinct.set(JSON.stringify(s), s);
    }
    return [...distinct.values()];
  }
  if (typeof value === 'object') {
    const obj = value as Record<string, unknown>;
    return Object.fromEntries(
      Object.keys(obj)
        .sort()
        .map((key) => [key, shape(obj[key])]),
    );
  }
  return typeof value;
}

/** What must match per line: the event, its shape, and the values that carry meaning (types, states, status). */
export function signature(line: Record<string, unknown>): Record<string, unknown> {
  const step = line.step_update as Record<string, unknown> | undefined;
  const result = (line.event === undefined ? line : line.result) as Record<string, unknown> | undefined;
  return {
    event: line.event,
    shape: shape(line),
    ...(step === undefined ? {} : { step: `${step.step_type}/${step.state}` }),
    ...(result?.status === undefined ? {} : { status: result.status }),
  };
}
