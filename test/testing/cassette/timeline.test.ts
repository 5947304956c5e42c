// A cassette's timeline from hostile user lines, in memory: a stdin line that is JSON but not a user message
// (`null`, a number, content that is not a list) is shown as it is, never a TypeError out of `show`.
import { describe, expect, it } from 'vitest';
import { buildTimeline, parseCassette } from '../../../src/testing/cassette/index.js';

const HEADER = JSON.stringify({
  format: 'agy-sdk-cassette',
  version: 1,
  backend: 'agy',
  agy: { version: '1.3.1', args: [] },
  recordedAt: '2026-01-01T00:00:00.000Z',
  sanitized: true,
});

describe('buildTimeline', () => {
  it('shows a user line that is not a user message as it is', () => {
    const lines = ['null', '7', '{"message":{"content":5}}', '{"message":{"content":[null,{"text":"hi"}]}}'];
    const text = [HEADER, ...lines.map((line, t) => JSON.stringify({ t, type: 'stdin', line }))].join('\n');
    const timeline = buildTimeline(parseCassette(text));
    expect(timeline.turns.map((t) => t.prompt)).toEqual(['null', '7', '{"message":{"content":5}}', '\nhi']);
  });
});
