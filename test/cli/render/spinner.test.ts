// The CLI's spinner (in place of nanospinner 1.2.2, which looped on a 0-column pty and exited on SIGINT).
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { formatElapsed, Spinner } from '../../../src/cli/render/spinner.js';

function tty(columns: number | undefined) {
  const stream = new PassThrough();
  let text = '';
  stream.on('data', (d: Buffer) => {
    text += d.toString();
  });
  Object.assign(stream, { isTTY: true, columns });
  return { stream, text: () => text };
}

afterEach(() => {
  vi.useRealTimers();
});

describe('Spinner', () => {
  it('draws one line cut to the width, redraws in place, and prints its final line on stop', () => {
    vi.useFakeTimers();
    const t = tty(20);
    const s = new Spinner(t.stream, 'a very long label that does not fit', { since: Date.now() });
    vi.advanceTimersByTime(400);
    s.stop('✓ done');
    const frames = t.text().split('\r\u001b[2K').slice(1, -1);
    expect(frames.length).toBeGreaterThan(3);
    for (const f of frames) expect(Array.from(f).length).toBeLessThan(20);
    expect(t.text().endsWith('\r\u001b[2K\u001b[?25h✓ done\n')).toBe(true);
  });

  it.each([0, undefined, Number.NaN])(
    'with %s columns draws nothing until stop and arms no timer',
    (columns) => {
      vi.useFakeTimers();
      const t = tty(columns);
      const s = new Spinner(t.stream, 'label');
      expect(vi.getTimerCount()).toBe(0);
      vi.advanceTimersByTime(1000);
      expect(t.text()).toBe('');
      s.stop('✓ label');
      expect(t.text()).toBe('✓ label\n');
    },
  );

  it('installs no signal handlers and clears its timer on stop', () => {
    vi.useFakeTimers();
    const before = process.listenerCount('SIGINT');
    const s = new Spinner(tty(80).stream, 'x');
    expect(process.listenerCount('SIGINT')).toBe(before);
    expect(vi.getTimerCount()).toBe(1);
    s.stop();
    s.stop();
    expect(vi.getTimerCount()).toBe(0);
  });

  it('formats elapsed time', () => {
    expect(formatElapsed(400)).toBe('0.4s');
    expect(formatElapsed(125_000)).toBe('2m05s');
  });
});
