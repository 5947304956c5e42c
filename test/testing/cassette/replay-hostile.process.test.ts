// Replaying hostile cassettes on the real simulator through the real spawn path, each turn bounded by
// `turnTimeoutMs` (20 s) so that a hang shows as a failed test, not a stalled suite: a differing stdin line
// against a recorded one with 8 placeholders is a CassetteMismatchError at once (the matching regex used to
// backtrack for hours); an `exit` record with a stop signal is refused when the cassette is read (the replayer
// used to SIGSTOP itself); a recorded death by signal is played without signalling the replayer, as exit
// 128 + N (docs/reference/process.md#exit-by-a-signal).
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CassetteMismatchError } from '../../../src/errors.js';
import { type CassetteRecord, readCassette, replayCassette } from '../../../src/testing/cassette/index.js';
import { useSandboxAgents } from '../../helpers/agents.js';

const sb = useSandboxAgents();

/** Records one turn answering `hi` to `prompt` on the simulator. */
async function recordOne(prompt: string): Promise<string> {
  const agent = await sb.agentWith(
    { turns: [{ actions: [{ text: 'hi' }] }] },
    {
      record: { dir: join(sb.box.root, 'cassettes') },
    },
  );
  await (await agent.chat(prompt)).result();
  await agent.close();
  return agent.cassetteFile!;
}

/** A copy of the cassette with its records replaced by `edit(records)` (the header kept). */
function rewrite(file: string, name: string, edit: (records: CassetteRecord[]) => object[]): string {
  const [header] = readFileSync(file, 'utf8').split('\n');
  const records = edit(readCassette(file).records);
  const out = join(sb.box.root, name);
  writeFileSync(out, `${[header, ...records.map((r) => JSON.stringify(r))].join('\n')}\n`);
  return out;
}

/** The records up to the user line and the first stdout line after it (agy has started the turn). */
function untilTurnStarted(records: CassetteRecord[]): CassetteRecord[] {
  const stdin = records.findIndex((r) => r.type === 'stdin');
  const next = records.findIndex((r, i) => i > stdin && r.type === 'stdout');
  return records.slice(0, next + 1);
}

/** One turn of `prompt` on a replay of `file`, bounded. */
async function replayTurn(file: string, prompt: string) {
  const replay = replayCassette(file, { mode: 'strict' });
  const agent = await sb.agentWith(undefined, {
    ...replay,
    env: { ...replay.env, AGY_SIM_STATE_DIR: sb.box.stateDir },
    turnTimeoutMs: 20_000,
  });
  return (await agent.chat(prompt)).result();
}

describe('replay of hostile cassettes', () => {
  it('a near miss of a line with 8 placeholders is a CassetteMismatchError, not a regex running for hours', async () => {
    const file = await recordOne('the recorded prompt');
    const globbed = rewrite(file, 'globbed.jsonl', (records) =>
      records.map((r) =>
        r.type === 'stdin'
          ? { ...r, line: r.line.replace('the recorded prompt', `${'<p>x'.repeat(8)}y`) }
          : r,
      ),
    );
    const result = await replayTurn(globbed, 'x'.repeat(150));
    expect(result.status).toBe('error');
    expect(result.error).toBeInstanceOf(CassetteMismatchError);
  });

  it('an exit by SIGSTOP is refused when the cassette is read, naming its line and field', async () => {
    const file = await recordOne('p');
    let line = 0;
    const stopped = rewrite(file, 'stopped.jsonl', (records) => {
      const kept = untilTurnStarted(records);
      line = kept.length + 2;
      return [...kept, { t: kept.at(-1)!.t, type: 'exit', code: null, signal: 'SIGSTOP' }];
    });
    // The replayer refuses the file before init: the start fails (it used to freeze after the user line).
    const outcome = await replayTurn(stopped, 'p').then(
      (result) => `${result.status}: ${result.errorMessage}`,
      (err: Error) => `${err.name}: ${err.message}`,
    );
    expect(outcome).toMatch(/^StartError: /);
    expect(outcome).toContain(`${stopped}:${line}: signal: must be null or a signal agy can end with`);
  });

  it('a recorded death by SIGTERM ends the turn as an exit 128 + 15, the replayer never signalling itself', async () => {
    const file = await recordOne('p');
    const killed = rewrite(file, 'killed.jsonl', (records) => {
      const kept = untilTurnStarted(records);
      return [...kept, { t: kept.at(-1)!.t, type: 'exit', code: null, signal: 'SIGTERM' }];
    });
    const result = await replayTurn(killed, 'p');
    expect(result.status).toBe('error');
    expect([result.exitCode, result.signal]).toEqual([143, null]);
  });
});
