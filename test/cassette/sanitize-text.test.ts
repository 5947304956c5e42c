// The sanitizer's text engine (src/cassette/sanitize-text.ts): rules applied across the fragments of one
// streamed text give, joined, exactly what they give on the joined text, however the text was cut; a rule never
// rewrites an earlier rule's replacement.
import { describe, expect, it } from 'vitest';
import { applyRules, literalRule, rule } from '../../src/cassette/sanitize-text.js';

/** A small deterministic generator (mulberry32), so a failure can be reproduced. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const RULES = [
  literalRule(
    new Map([
      ['hunter22', '<secret:A>'],
      ['abcabcab', '<secret:B>'],
    ]),
  )!,
  rule(/ACME-\d+/, '<redacted>'),
  rule(/([Bb]earer\s+)[0-9A-Za-z]{8,}/, '$1<bearer>'),
];

describe('rules across fragments', () => {
  it('joining the sanitized fragments gives the sanitized joined text, for every way of cutting it', () => {
    const next = random(44);
    const words = ['hunter22', 'abcabcab', 'ACME-42', 'Bearer tok12345678', ' ', 'x', 'hun', 'ter', '22', ''];
    for (let round = 0; round < 300; round++) {
      let text = '';
      for (let i = 0; i < 8; i++) text += words[Math.floor(next() * words.length)];
      const cuts: string[] = [];
      let at = 0;
      while (at < text.length) {
        // Empty pieces too: a DONE update may carry no text.
        const len = Math.floor(next() * 5);
        cuts.push(text.slice(at, at + len));
        at += len;
      }
      const whole = applyRules([text], RULES)[0];
      const pieces = applyRules(cuts, RULES);
      expect(pieces).toHaveLength(cuts.length);
      expect(pieces.join(''), JSON.stringify(cuts)).toBe(whole);
      for (const secret of ['hunter22', 'abcabcab']) expect(pieces.join('')).not.toContain(secret);
    }
  });

  it('a secret over three pieces: the placeholder where it starts, nothing of it after', () => {
    expect(applyRules(['say hunt', 'er', '22 now'], RULES)).toEqual(['say <secret:A>', '', ' now']);
  });

  it('a later rule never rewrites an earlier replacement', () => {
    const later = rule(/secret|redacted|A>/, 'X');
    expect(applyRules(['hunter22 ACME-1 secret'], [...RULES, later])).toEqual(['<secret:A> <redacted> X']);
  });

  it('a zero-length match is ignored', () => {
    expect(applyRules(['abc'], [rule(/(?=b)/, '!')])).toEqual(['abc']);
  });
});
