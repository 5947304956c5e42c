// Terminal control sequences in model or tool text are neutralised before the CLI prints them (issue 22).
import { describe, expect, it } from 'vitest';
import { TerminalTextFilter, terminalSafe } from '../../src/internal/terminal-text.js';

const ESC = '\u001b';
const BEL = '\u0007';

describe('terminalSafe', () => {
  it.each([
    ['OSC 52 clipboard write (BEL)', `a${ESC}]52;c;ZXZpbA==${BEL}b`, 'ab'],
    ['OSC 52 clipboard write (ST)', `a${ESC}]52;c;ZXZpbA==${ESC}\\b`, 'ab'],
    ['window title', `a${ESC}]0;pwned${BEL}b`, 'ab'],
    ['OSC 8 hyperlink', `${ESC}]8;;https://evil${ESC}\\click${ESC}]8;;${ESC}\\`, 'click'],
    ['hidden text (SGR 8) stays visible', `see ${ESC}[8mhidden${ESC}[0m`, 'see hidden'],
    ['cursor movement and erase', `ok${ESC}[2K${ESC}[1A${ESC}[10D`, 'ok'],
    ['DCS', `a${ESC}Pq#0;2;0;0;0${ESC}\\b`, 'ab'],
    ['8-bit CSI and OSC', `a\u009b31mb\u009d0;t\u0007c`, 'abc'],
    ['two-byte ESC (reset, charset)', `a${ESC}c${ESC}(0b`, 'ab'],
    ['bare carriage return (overwrite)', 'safe\rEVIL', 'safeEVIL'],
    ['bidi override', 'abc\u202edef\u202c', 'abcdef'],
    ['other C0 and DEL', 'a\u0008b\u007fc', 'a\ufffdb\ufffdc'],
  ])('%s', (_name, input, expected) => {
    expect(terminalSafe(input)).toBe(expected);
  });

  it('keeps newlines, tabs, CRLF and non-ASCII text as they are', () => {
    const text = 'línea 1\r\n\tcafé ✓ 日本語\n';
    expect(terminalSafe(text)).toBe(text);
  });
});

describe('TerminalTextFilter', () => {
  it('holds a sequence split across chunks until its end, then drops it whole', () => {
    const f = new TerminalTextFilter();
    const chunks = ['before ', `${ESC}]5`, '2;c;ZXZp', `bA==${BEL} after`];
    expect(chunks.map((c) => f.push(c)).join('')).toBe('before  after');
  });

  it('splits at every position give the same result as the whole text', () => {
    const whole = `x${ESC}[31mred${ESC}[0m ${ESC}]0;t${ESC}\\y\r\nz`;
    for (let i = 0; i <= whole.length; i++) {
      const f = new TerminalTextFilter();
      expect(f.push(whole.slice(0, i)) + f.push(whole.slice(i))).toBe(terminalSafe(whole));
    }
  });

  it('drops an unterminated sequence that grows past its bound, and the text resumes after it', () => {
    const f = new TerminalTextFilter();
    expect(f.push(`a${ESC}]52;c;`)).toBe('a');
    expect(f.push('Z'.repeat(5000))).toBe('');
    expect(f.push(' next')).toBe(' next');
  });
});
