// The ACP backend's stdout framing (docs/reference/acp.md#hostile-agents): agy's LineSplitter with the line cap,
// one parse per line, junk dropped through the logger, and nothing thrown once the reader is gone.
import { describe, expect, it } from 'vitest';
import { MAX_LOGGED_UPDATE_KINDS, StdoutLines } from '../../../src/connection/acp/stdout-lines.js';
import type { Logger } from '../../../src/logger.js';

function recorder(): Logger & { lines: string[] } {
  const lines: string[] = [];
  const keep = (level: string) => (m: string) => {
    lines.push(`${level}: ${m}`);
  };
  return { lines, debug: keep('debug'), info: keep('info'), warn: keep('warn'), error: keep('error') };
}

const update = (text: string) =>
  JSON.stringify({
    jsonrpc: '2.0',
    method: 'session/update',
    params: {
      sessionId: 's',
      update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text } },
    },
  });

describe('StdoutLines', () => {
  it('a long line arriving in small chunks is one message; its buffer is released after it', async () => {
    const lines = new StdoutLines(recorder(), 8 * 1024 * 1024);
    const reader = lines.readable.getReader();
    const text = 'é'.repeat(1024 * 1024); // 2 MiB of UTF-8, split mid-character by the chunking
    const bytes = Buffer.from(`${update(text)}\n`, 'utf8');
    for (let i = 0; i < bytes.length; i += 1000) lines.push(bytes.subarray(i, i + 1000));
    const { value } = await reader.read();
    expect((value as { params: { update: { content: { text: string } } } }).params.update.content.text).toBe(
      text,
    );
  });

  it('a line one byte over maxLineBytes is dropped and logged; the next line goes through', async () => {
    const logger = recorder();
    const max = 4096;
    const lines = new StdoutLines(logger, max);
    const reader = lines.readable.getReader();
    lines.push(Buffer.from(`{${'x'.repeat(max)}\n`));
    lines.push(Buffer.from(`${update('next')}\n`));
    const { value } = await reader.read();
    expect((value as { method: string }).method).toBe('session/update');
    expect(lines.tooLong).toBe(1);
    expect(logger.lines.some((l) => l.includes(`longer than ${max} bytes`))).toBe(true);
  });

  it('answers pass only for requests we sent, once', async () => {
    const logger = recorder();
    const lines = new StdoutLines(logger, 1 << 20);
    const reader = lines.readable.getReader();
    lines.sent({ jsonrpc: '2.0', id: 7, method: 'session/prompt', params: {} });
    lines.push(Buffer.from('{"jsonrpc":"2.0","id":7,"result":{}}\n{"jsonrpc":"2.0","id":7,"result":{}}\n'));
    lines.push(Buffer.from('{"jsonrpc":"2.0","id":8,"result":{}}\n'));
    expect(((await reader.read()).value as { id: number }).id).toBe(7);
    expect(lines.dropped).toBe(2);
    expect(logger.lines.filter((l) => l.includes('a response to no request of ours'))).toHaveLength(2);
  });

  it('after the reader cancelled, lines are dropped and counted, never thrown', async () => {
    const lines = new StdoutLines(recorder(), 1 << 20);
    await lines.readable.cancel();
    expect(() => lines.push(Buffer.from(`${update('late')}\n${update('later')}\n`))).not.toThrow();
    expect(() => lines.end()).not.toThrow();
    expect(lines.afterClose).toBe(2);
  });

  it('schema-invalid session/updates are dropped and counted, and logged once per kind for a bounded number of kinds', async () => {
    const logger = recorder();
    const lines = new StdoutLines(logger, 1 << 20);
    const reader = lines.readable.getReader();
    const raw = (u: unknown) =>
      `${JSON.stringify({ jsonrpc: '2.0', method: 'session/update', params: { sessionId: 's', update: u } })}\n`;
    // The same bad kind three times, then more made-up kinds than are logged, then a good update.
    for (let i = 0; i < 3; i++)
      lines.push(
        Buffer.from(raw({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: i } })),
      );
    const madeUp = MAX_LOGGED_UPDATE_KINDS + 5;
    for (let i = 0; i < madeUp; i++) lines.push(Buffer.from(raw({ sessionUpdate: `kind_${i}` })));
    lines.push(Buffer.from(`${update('good')}\n`));
    const { value } = await reader.read();
    // Only the good update reached the reader.
    expect((value as { params: { update: { content: { text: string } } } }).params.update.content.text).toBe(
      'good',
    );
    expect(lines.invalidUpdates).toBe(3 + madeUp);
    expect(lines.dropped).toBe(3 + madeUp);
    const warned = logger.lines.filter((l) => l.startsWith('warn: '));
    // agent_message_chunk once, then made-up kinds up to the cap, then one line saying the rest are not logged.
    expect(warned).toHaveLength(MAX_LOGGED_UPDATE_KINDS + 1);
    expect(warned.filter((l) => l.includes('(agent_message_chunk)'))).toHaveLength(1);
    expect(warned.at(-1)).toContain(`more than ${MAX_LOGGED_UPDATE_KINDS} kinds`);
    expect(logger.lines.filter((l) => l.includes('(kind_'))).toHaveLength(MAX_LOGGED_UPDATE_KINDS - 1);
  });
});
