import { afterEach, describe, expect, it } from 'vitest';
import { acpSandbox, collect } from './helpers.js';

const boxes: Array<ReturnType<typeof acpSandbox>> = [];
afterEach(() => {
  for (const b of boxes.splice(0)) b.cleanup();
});

describe('smoke', () => {
  it('runs one turn', async () => {
    const box = acpSandbox();
    boxes.push(box);
    await using agent = box.agent({
      turns: [{ actions: [{ type: 'thought', text: 'hmm' }, { type: 'text', text: 'Hello' }, { type: 'text', text: ' world' }] }],
    });
    const r = await agent.chat('hi');
    const thoughts = collect(r.thoughts());
    const result = await r.result();
    console.log(JSON.stringify(result, null, 1).slice(0, 2000), await thoughts, agent.capabilities);
    expect(result.status).toBe('success');
  });
});
