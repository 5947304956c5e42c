// The replayer's stdin comparison: placeholders of the sanitizer match any text. The matcher is a linear
// `*`-glob; it must answer exactly as the regular expression it replaced (`^lit.*?lit…$`, kept here as the
// oracle) on every small case. The near miss that made the regex backtrack for hours is played through the
// SDK with a bounded turn (test/testing/cassette/replay-hostile.process.test.ts).
import { describe, expect, it } from 'vitest';
import { stdinMatches } from '../../../src/testing/cassette/mismatch.js';

const PLACEHOLDER = /<[a-z][a-z0-9:_-]*>|00000000-0000-4000-8000-\d{12}/gi;
function oracle(recorded: string, actual: string): boolean {
  if (recorded === actual) return true;
  const literal = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  let pattern = '';
  let last = 0;
  for (const m of recorded.matchAll(PLACEHOLDER)) {
    pattern += `${literal(recorded.slice(last, m.index))}.*?`;
    last = m.index + m[0].length;
  }
  if (last === 0) return false;
  return new RegExp(`^${pattern}${literal(recorded.slice(last))}$`, 's').test(actual);
}

/** Every string of length 0..max over `alphabet`. */
function* strings(alphabet: readonly string[], max: number): Generator<string> {
  let level = [''];
  for (let n = 0; n <= max; n++) {
    yield* level;
    level = level.flatMap((s) => alphabet.map((a) => s + a));
  }
}

describe('stdinMatches', () => {
  it('agrees with the regular expression on every recorded/actual pair up to 4 pieces and 6 characters', () => {
    const recorded = [...strings(['a', 'b', '<p>'], 4)];
    const actual = [...strings(['a', 'b', '\n'], 6)];
    let matches = 0;
    for (const r of recorded)
      for (const a of actual) {
        const want = oracle(r, a);
        if (stdinMatches(r, a) !== want) expect({ recorded: r, actual: a, match: !want }).toBeUndefined();
        if (want) matches++;
      }
    expect(matches).toBeGreaterThan(1000);
  });

  it('knows the sanitizer placeholders and the rewritten conversation ids', () => {
    expect(stdinMatches('{"cwd":"<workspace>/a"}', '{"cwd":"/home/u/p/a"}')).toBe(true);
    expect(stdinMatches('{"k":"<secret:API_KEY>"}', '{"k":"abc"}')).toBe(true);
    const id = '00000000-0000-4000-8000-000000000001';
    expect(stdinMatches(`{"c":"${id}"}`, '{"c":"6f1c2d3e-aaaa-4bbb-8ccc-123456789abc"}')).toBe(true);
    expect(stdinMatches('{"k":"<p>"}', '{"k":"x"')).toBe(false);
    expect(stdinMatches('ab<p>ba', 'aba')).toBe(false);
  });
});
