// Framing and drift tolerance through real processes (agy-cli.md §D.3 "Framing caveat", §F.1).
import { describe, expect, it } from 'vitest';
import type { BadLine } from '../../src/connection/stream-json/parse-line.js';
import { LineTooLongError } from '../../src/errors.js';
import { useSandboxAgents } from '../helpers/agents.js';

const sb = useSandboxAgents();
const agentWith = sb.agentWith.bind(sb);

describe('stdout robustness', () => {
  it('delivers a 16 MiB line intact', async () => {
    const size = 16 * 1024 * 1024;
    const agent = await agentWith({ turns: [{ actions: [{ hugeText: size }] }] });
    const text = await (await agent.chat('big')).text();
    expect(text.length).toBe(size);
  });

  it('drops a line over maxLineBytes with a typed error; the turn fails closed; the session goes on', async () => {
    const bad: BadLine[] = [];
    const agent = await agentWith(
      { turns: [{ actions: [{ hugeText: 200_000 }, { text: 'after' }] }, { actions: [{ text: 'next' }] }] },
      { maxLineBytes: 100_000, onBadLine: (b) => bad.push(b) },
    );
    const result = await (await agent.chat('big')).result();
    expect(result.status).toBe('error');
    expect(result.error).toBeInstanceOf(LineTooLongError);
    expect(result.text).toBe('after');
    expect(bad.map((b) => b.reason)).toEqual(['too_long']);
    expect(await (await agent.chat('more')).text()).toBe('next');
  });

  it('counts garbage and unknown events via onBadLine, never throws, and the turn succeeds', async () => {
    const bad: BadLine[] = [];
    const agent = await agentWith(
      {
        turns: [
          {
            actions: [
              { raw: 'Loaded cached credentials.\n' },
              { raw: '{"event":"step_upd\n' },
              { raw: '[1,2,3]\n' },
              { unknownEvent: 'telemetry' },
              { step: { step_type: 'brand_new_kind', state: 'DONE', extra: true } },
              { text: 'fine' },
            ],
          },
        ],
      },
      { onBadLine: (b) => bad.push(b) },
    );
    const r = await agent.chat('x');
    expect(await r.text()).toBe('fine');
    expect(bad.map((b) => b.reason)).toEqual(['not_json', 'not_json', 'not_object', 'unknown_event']);
    expect(agent.stats).toMatchObject({ badLines: 4, unknownEvents: 1 });
    const steps = [];
    for await (const s of r.steps()) steps.push(s);
    expect(steps.find((s) => s.type === 'brand_new_kind')?.raw).toMatchObject({ extra: true });
  });

  it('decodes a UTF-8 character split across writes, and raw U+2028/U+0085 inside strings', async () => {
    const line = `${JSON.stringify({
      event: 'step_update',
      step_update: {
        step_index: 50,
        state: 'DONE',
        step_type: 'agent_response',
        text_delta: '🌍\u2028é\u0085!',
      },
    })}\n`;
    const bytes = Buffer.from(line);
    const cut = bytes.indexOf(Buffer.from('🌍')) + 2;
    const agent = await agentWith({
      turns: [
        {
          actions: [
            { rawBytes: [bytes.subarray(0, cut).toString('base64'), bytes.subarray(cut).toString('base64')] },
          ],
        },
      ],
    });
    const r = await agent.chat('x');
    const deltas: string[] = [];
    for await (const d of r) deltas.push(d);
    expect(deltas).toContain('🌍\u2028é\u0085!');
    expect((await r.result()).status).toBe('success');
  });
});
