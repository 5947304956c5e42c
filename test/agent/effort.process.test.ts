/**
 * `effort` takes the Python SDK's `ThinkingLevel` names; agy takes `--effort low|medium|high`
 * (docs/reference/stream-json.md#launch), so `minimal` runs as `low`. The simulator, like agy, refuses any other
 * `--effort` value (exit 2), so a turn that succeeds shows what it was given.
 */
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { useSandboxAgents } from '../helpers/agents.js';

const sb = useSandboxAgents();

describe('effort', () => {
  it("minimal runs as agy's low", async () => {
    const agent = await sb.agentWith({ turns: [{ actions: [{ text: 'ok' }] }] }, { effort: 'minimal' });
    const result = await (await agent.chat('hi')).result();
    expect(result.status, result.errorMessage).toBe('success');
    const argv = (await readFile(`/proc/${agent.pid}/cmdline`, 'utf8')).split('\0');
    expect(argv[argv.indexOf('--effort') + 1]).toBe('low');
  });
});
