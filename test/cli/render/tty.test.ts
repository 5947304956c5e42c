// The TTY renderer on fake terminal streams: a line printed while a spinner runs never lands inside the
// spinner's row (two tool calls at once), the working spinner comes back when the model pauses (under the
// answer's open line, the cursor put back), and nothing animates after the closing line.
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { IDLE_MS, TtyRenderer } from '../../../src/cli/render/tty.js';
import type { Step, ToolCall, TurnResult } from '../../../src/index.js';

const FRAME = /[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]/;
const ESC = String.fromCharCode(27);
const CLEAR_LINE = `\r${ESC}[2K`;

/** A fake terminal stream, 80 columns, keeping what was written. */
function tty(isTTY = true) {
  const stream = new PassThrough();
  let text = '';
  stream.on('data', (d: Buffer) => {
    text += d.toString();
  });
  Object.assign(stream, { isTTY, columns: 80 });
  return { stream, text: () => text };
}

function toolStep(index: number, state: 'ACTIVE' | 'DONE', path: string): Step {
  const tool: ToolCall = {
    id: `c:${index}`,
    name: 'view_file',
    args: { AbsolutePath: path },
    stepIndex: index,
    state,
    ...(state === 'DONE' && { output: 'ok' }),
  };
  return { conversationId: 'c', stepIndex: index, state, type: 'tool', tool, raw: {} };
}

function textStep(index: number, textDelta: string): Step {
  return {
    conversationId: 'c',
    stepIndex: index,
    state: 'ACTIVE',
    type: 'agent_response',
    textDelta,
    raw: {},
  };
}

const result = { status: 'success', text: '', usage: null, durationMs: 10 } as unknown as TurnResult;

/** The visible text of each finished line on `err`: what is left after the last clear of its row. */
const lines = (written: string): string[] =>
  written
    .replaceAll(`${ESC}[?25h`, '')
    .replaceAll(`${ESC}[?25l`, '')
    .split('\n')
    .map((l) => l.split(CLEAR_LINE).at(-1) ?? '');

afterEach(() => {
  vi.useRealTimers();
});

describe('TtyRenderer', () => {
  it('two tool calls at once: every line starts on a clean row, no spinner frame inside one', () => {
    vi.useFakeTimers();
    const out = tty();
    const err = tty();
    const r = new TtyRenderer({ out: out.stream, err: err.stream }, { streamText: true, color: false });
    r.start();
    r.step(toolStep(1, 'ACTIVE', '/tmp/a'));
    vi.advanceTimersByTime(200);
    r.step(toolStep(2, 'ACTIVE', '/tmp/b'));
    vi.advanceTimersByTime(200);
    r.step(toolStep(1, 'DONE', '/tmp/a'));
    vi.advanceTimersByTime(200);
    r.step(toolStep(2, 'DONE', '/tmp/b'));
    vi.advanceTimersByTime(200);
    r.end(result, { showStructured: false });
    const printed = lines(err.text()).filter((l) => l !== '');
    for (const line of printed) expect(line).not.toMatch(FRAME);
    expect(printed).toContain('• view_file /tmp/b');
    expect(printed).toContain('✓ view_file /tmp/a — ok');
    expect(printed).toContain('✓ view_file /tmp/b — ok');
    expect(vi.getTimerCount()).toBe(0);
  });

  it('a pause mid-sentence: the spinner draws under the open line and gives the cursor back', () => {
    vi.useFakeTimers();
    const out = tty();
    const err = tty();
    const r = new TtyRenderer({ out: out.stream, err: err.stream }, { streamText: true, color: false });
    r.start();
    r.step(textStep(1, 'Hello, '));
    const before = err.text().length;
    vi.advanceTimersByTime(IDLE_MS - 1);
    expect(err.text().length).toBe(before);
    vi.advanceTimersByTime(IDLE_MS);
    const drawn = err.text().slice(before);
    // Save the cursor, down a row, clear it, draw, restore: the open line is never touched.
    expect(drawn).toMatch(
      new RegExp(`${ESC}7${ESC}D\r${ESC}\\[2K${FRAME.source} working… \\d+\\.\\ds${ESC}8`),
    );
    const beforeWords = err.text().length;
    r.step(textStep(1, 'world.'));
    // The spinner's row is cleared and the cursor is back at the end of "Hello, " before the words go on.
    expect(err.text().slice(beforeWords)).toBe('\u001b7\u001bD\r\u001b[2K\u001b8\u001b[?25h');
    expect(out.text()).toBe('Hello, world.');
    r.end(result, { showStructured: false });
    expect(vi.getTimerCount()).toBe(0);
  });

  it('nothing is drawn after the closing line, however long the process lives on', () => {
    vi.useFakeTimers();
    const out = tty();
    const err = tty();
    const r = new TtyRenderer({ out: out.stream, err: err.stream }, { streamText: true, color: false });
    r.start();
    r.step(textStep(1, 'done'));
    r.end(result, { showStructured: false });
    const closed = err.text();
    r.dispose();
    r.note('a log line after the turn');
    vi.advanceTimersByTime(10 * IDLE_MS);
    expect(err.text().slice(closed.length)).toBe('a log line after the turn\n');
    expect(vi.getTimerCount()).toBe(0);
  });

  it('wait() shows the label until start, keeping it under a notice', () => {
    vi.useFakeTimers();
    const out = tty();
    const err = tty();
    const r = new TtyRenderer({ out: out.stream, err: err.stream }, { streamText: true, color: false });
    r.wait('starting agy…');
    expect(err.text()).toMatch(/[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] starting agy… 0\.0s/);
    r.note('a warning');
    expect(lines(err.text())).toContain('a warning');
    expect(err.text().split('a warning\n')[1]).toMatch(/starting agy…/);
    r.start();
    expect(err.text()).toMatch(/working…/);
    r.dispose();
    expect(vi.getTimerCount()).toBe(0);
  });
});
