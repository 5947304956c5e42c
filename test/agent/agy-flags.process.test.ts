/**
 * agy's turn-shaping flags (`mode`, `sandbox`, `effort` `xhigh`/`max`) reach agy only when the probed build is
 * known to accept them; otherwise the start is an `UnsupportedError` naming the flag and the version, before
 * agy runs (docs/reference/stream-json.md#flags-by-version). The simulator imitates each build's acceptance.
 */
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import type { Agent } from '../../src/agent/agent.js';
import { UnsupportedError } from '../../src/errors.js';
import { useSandboxAgents } from '../helpers/agents.js';

const sb = useSandboxAgents();
const OK = { turns: [{ actions: [{ text: 'ok' }] }] };

async function argvOf(agent: Agent): Promise<string[]> {
  return (await readFile(`/proc/${agent.pid}/cmdline`, 'utf8')).split('\0');
}

/** The start's error, which must be an `UnsupportedError`, with no agy process ever started. */
async function refusal(agent: Agent): Promise<UnsupportedError> {
  const err = await (async () => (await agent.chat('hi')).result())().then(
    (r) => r.error ?? new Error(`no error: ${r.status}`),
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(UnsupportedError);
  expect(agent.pid).toBeUndefined();
  return err as UnsupportedError;
}

describe('agy turn flags', () => {
  it('passes --mode plan and --sandbox to a build that knows them (1.3.1)', async () => {
    const agent = await sb.agentWith(OK, { mode: 'plan', sandbox: true });
    const result = await (await agent.chat('hi')).result();
    expect(result.status, result.errorMessage).toBe('success');
    const argv = await argvOf(agent);
    expect(argv[argv.indexOf('--mode') + 1]).toBe('plan');
    expect(argv).toContain('--sandbox');
  });

  it('passes --mode accept-edits to 1.3.1', async () => {
    const agent = await sb.agentWith(OK, { mode: 'accept-edits' });
    const result = await (await agent.chat('hi')).result();
    expect(result.status, result.errorMessage).toBe('success');
    const argv = await argvOf(agent);
    expect(argv[argv.indexOf('--mode') + 1]).toBe('accept-edits');
  });

  it('refuses --mode accept-edits before launching 1.2.17, naming the flag and the version', async () => {
    const agent = await sb.agentWith({ ...OK, version: '1.2.17' }, { mode: 'accept-edits' });
    const err = await refusal(agent);
    expect(err.feature).toBe('mode');
    expect(err.message).toContain('--mode accept-edits');
    expect(err.message).toContain('1.2.17');
  });

  it('refuses --sandbox before launching 1.1.8', async () => {
    const agent = await sb.agentWith({ ...OK, version: '1.1.8' }, { sandbox: true });
    const err = await refusal(agent);
    expect(err.feature).toBe('sandbox');
    expect(err.message).toMatch(/--sandbox: agy 1\.1\.8 is not known to accept it/);
  });

  it('refuses --effort xhigh and max on every known build, naming the version', async () => {
    for (const effort of ['xhigh', 'max'] as const) {
      const agent = await sb.agentWith(OK, { effort });
      const err = await refusal(agent);
      expect(err.feature).toBe('effort');
      expect(err.message).toContain(`--effort ${effort}`);
      expect(err.message).toContain('1.3.1');
    }
  });
});
