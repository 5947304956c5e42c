// The CLI's one-line renderings: terminal-safe, and cut at a word boundary so a reason never ends mid-word.
import { describe, expect, it } from 'vitest';
import { jsonLine, oneLine } from '../../../src/cli/render/format.js';

describe('oneLine', () => {
  it('cuts at the last word boundary near the limit', () => {
    const reason = "Denied by policy 'confirm_run_command': denied by the user at the terminal";
    expect(oneLine(reason, 50)).toBe("Denied by policy 'confirm_run_command': denied…");
  });

  it('cuts a single long word where it must', () => {
    expect(oneLine('x'.repeat(100), 10)).toBe(`${'x'.repeat(9)}…`);
  });

  it('flattens whitespace and drops control sequences', () => {
    expect(oneLine('a\n\tb \u001b]0;t\u0007c')).toBe('a b c');
  });
});

describe('jsonLine', () => {
  it('escapes C1 controls as well as C0 ones, and stays valid JSON', () => {
    const value = { text: 'a\u009b31mb\u001bc' };
    const line = jsonLine(value);
    expect(
      [...line].filter((c) => c.charCodeAt(0) < 0x20 || (c.charCodeAt(0) >= 0x80 && c.charCodeAt(0) <= 0x9f)),
    ).toEqual([]);
    expect(JSON.parse(line)).toEqual(value);
  });
});
