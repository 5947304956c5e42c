// Runtime drift (docs/reference/stream-json.md#drift-tolerance): a real 1.3.1 capture
// (agy-real/joiomi-playbook-plugin-agy-1.3.1/success-tools.stdout), imported as a cassette, with drift injected,
// replayed through the real Agent. Unknown step types, states, events and fields are counted in `agent.stats.drift`
// and logged once per session; a step the SDK cannot place (`step_index` renamed) is a bad line and the turn
// fails closed instead of ending `success` with every step and tool call dropped.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Agent } from '../../../../src/agent/agent.js';
import type { Logger } from '../../../../src/logger.js';
import {
  type Cassette,
  importCapture,
  replayCassette,
  serializeCassette,
} from '../../../../src/testing/cassette/index.js';
import { AGY_REAL, HAVE_CAPTURES, NO_CAPTURES_REASON } from '../../../helpers/captures.js';
import { sandbox } from '../../../helpers/sandbox.js';

const CAPTURE = 'joiomi-playbook-plugin-agy-1.3.1/success-tools.stdout';
// Made by a hook, not while vitest collects the file (a `vitest list` would leave it behind).
let out: string;
beforeAll(() => {
  out = mkdtempSync(join(tmpdir(), 'agy-sdk-drift-'));
});
afterAll(() => rmSync(out, { recursive: true, force: true }));

/** The capture as a cassette with `edit` applied to every stdout line. */
function drifted(name: string, edit: (line: string) => string): string {
  const c: Cassette = importCapture(join(AGY_REAL, CAPTURE));
  c.records = c.records.map((r) => (r.type === 'stdout' ? { ...r, line: edit(r.line) } : r));
  const file = join(out, `${name}.cassette.jsonl`);
  writeFileSync(file, serializeCassette(c));
  return file;
}

async function replay(file: string) {
  const warnings: string[] = [];
  const logger: Logger = {
    debug: () => {},
    info: () => {},
    warn: (m) => warnings.push(m),
    error: () => {},
  };
  const box = await sandbox();
  const agent = new Agent(await box.agentConfig(undefined, { ...replayCassette(file), logger }));
  try {
    const response = await agent.chat('replay');
    const result = await response.result();
    return { result, stats: structuredClone(agent.stats!), warnings };
  } finally {
    await agent.close();
    await box.cleanup();
  }
}

describe.skipIf(!HAVE_CAPTURES)(
  HAVE_CAPTURES ? 'drift at run time' : `skipped: ${NO_CAPTURES_REASON}`,
  () => {
    it('the capture as it is: success, no drift', async () => {
      const { result, stats, warnings } = await replay(drifted('clean', (l) => l));
      expect(result.status).toBe('success');
      expect(result.toolCalls.length).toBeGreaterThan(0);
      expect(stats.drift).toEqual([]);
      expect(warnings.filter((w) => w.includes('does not know'))).toEqual([]);
    });

    it('step_index renamed to stepIndex in every line: bad lines, the turn fails closed, the field is named', async () => {
      const { result, stats, warnings } = await replay(
        drifted('renamed', (l) => l.replaceAll('"step_index"', '"stepIndex"')),
      );
      expect(result.status).toBe('error');
      expect(result.errorMessage).toMatch(/step update\(s\) could not be read/);
      expect(stats.badLines).toBeGreaterThan(0);
      expect(stats.drift).toContainEqual(
        expect.objectContaining({ kind: 'field', name: 'step_update.stepIndex', count: expect.any(Number) }),
      );
      // Once per session, however many lines carry it.
      const named = warnings.filter((w) => w.includes('step_update.stepIndex'));
      expect(named).toHaveLength(1);
      expect(named[0]).toMatch(
        /^agy (\d+\.\d+\.\d+|\(version unknown\)) writes a field this SDK does not know: step_update\.stepIndex$/,
      );
    });

    it('a new field of init is named by its path, once (docs/reference/versions.md#what-a-newer-build-gets)', async () => {
      const { result, stats, warnings } = await replay(
        drifted('init-field', (l) => l.replace('"init":{', '"init":{"sandbox":"strict",')),
      );
      expect(result.status).toBe('success');
      expect(stats.drift).toContainEqual(
        expect.objectContaining({ kind: 'field', name: 'init.sandbox', count: 1 }),
      );
      expect(
        warnings.filter((w) => w.endsWith('writes a field this SDK does not know: init.sandbox')),
      ).toHaveLength(1);
    });

    it('a wrong-typed step_type is a step the SDK cannot place', async () => {
      const { result } = await replay(
        drifted('retyped', (l) => l.replace('"step_type":"tool"', '"step_type":{"kind":"tool"}')),
      );
      expect(result.status).toBe('error');
    });

    it('a new step type, state, field and event are counted and logged once, and pass through', async () => {
      let injected = false;
      const { result, stats, warnings } = await replay(
        drifted('additions', (l) => {
          let line = l
            .replace('"step_type":"user_input"', '"step_type":"thinking"')
            .replace('"state":"ACTIVE"', '"state":"QUEUED"')
            .replace('"step_update":{', '"step_update":{"sandbox_id":"s1",');
          if (!injected && line.includes('"event":"result"')) {
            injected = true;
            line = `{"event":"heartbeat","heartbeat":{}}\n${line}`;
          }
          return line;
        }),
      );
      // Unknown names pass through: the turn is what agy said.
      expect(result.status).toBe('success');
      const names = stats.drift.map((d) => `${d.kind}:${d.name}`);
      expect(names).toEqual(
        expect.arrayContaining([
          'step_type:thinking',
          'state:QUEUED',
          'field:step_update.sandbox_id',
          'event:heartbeat',
        ]),
      );
      const field = stats.drift.find((d) => d.name === 'step_update.sandbox_id')!;
      expect(field.count).toBeGreaterThan(1);
      expect(warnings.filter((w) => w.includes('step_update.sandbox_id'))).toHaveLength(1);
    });
  },
);
