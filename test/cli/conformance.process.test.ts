// `agy-sdk doctor --conformance` without a real agy (it needs a signed-in one): the probes run on the simulator at
// every version profile (every fact passes), and on replays of real captures (../shared/fixtures/agy-real/),
// clean and with drift injected (a renamed field, a new step type, a changed error text, a changed exit code):
// each injected drift is reported by name. Facts: docs/reference/wire-facts.json.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ConformanceReport, formatReport, runConformance } from '../../src/cli/conformance.js';
import {
  type Cassette,
  importCapture,
  type Probe,
  serializeCassette,
} from '../../src/testing/cassette/index.js';
import { AGY_REAL, HAVE_CAPTURES, NO_CAPTURES_REASON } from '../helpers/captures.js';
import { SIM_VERSION_PROFILES } from '../helpers/cassette-scenarios.js';

// Made by a hook, not while vitest collects the file (a `vitest list` would leave it behind).
let out: string;
beforeAll(() => {
  out = mkdtempSync(join(tmpdir(), 'agy-sdk-conformance-test-'));
});
afterAll(() => rmSync(out, { recursive: true, force: true }));

const verdicts = (r: ConformanceReport) => Object.fromEntries(r.facts.map((f) => [f.id, f.status]));
const details = (r: ConformanceReport, id: string) => r.facts.find((f) => f.id === id)!.details.join('\n');

describe('conformance on the simulator', () => {
  it.concurrent.each(SIM_VERSION_PROFILES)(
    'agy %s (simulated): every fact passes',
    async (version) => {
      const report = await runConformance({
        offline: true,
        env: { AGY_SIM_VERSION: version },
        dir: join(out, `sim-${version}`),
      });
      expect(report.errors).toEqual({});
      expect(
        report.facts.filter((f) => f.status !== 'pass'),
        formatReport(report),
      ).toEqual([]);
      expect(Object.keys(report.cassettes).sort()).toEqual(
        ['builtin-tool', 'denied', 'interrupt', 'own-tool', 'resume', 'slash', 'text'].sort(),
      );
      // Seven agents started one after another, five profiles at once: about 4 s each alone, over a minute on a
      // loaded 2-core box.
    },
    240_000,
  );
});

const J13 = 'joiomi-playbook-plugin-agy-1.3.1';
const CAPTURE_PROBES: Partial<Record<Probe, string>> = {
  text: `${J13}/success-pong.stdout`,
  'builtin-tool': `${J13}/success-tools.stdout`,
  denied: `${J13}/denied-command.stdout`,
  interrupt: 'littlebearapps-untether-agy-1.3.1/interrupted_sigint.script',
  resume: 'jdiazromeral-agy-plugin-cc/resume-2026-08-02-run1.ndjson',
  slash: 'jdiazromeral-agy-plugin-cc/command_result-2026-09-20-run1.ndjson',
};

/** A capture as the cassette agy would replay for `probe`, with `edit` applied. */
function captureCassette(probe: Probe, name: string, edit: (c: Cassette) => void = () => {}): string {
  const c = importCapture(join(AGY_REAL, CAPTURE_PROBES[probe]!));
  if (probe === 'slash') {
    // A print-mode run (`-p /model --output-format stream-json`): no init, no stdin; exit 0.
    c.records = [
      { t: 0, type: 'spawn', args: ['-p', '/model', '--output-format', 'stream-json'] },
      ...c.records.filter((r) => r.type === 'stdout' && !r.line.startsWith('{"event":"init"')),
      { t: 0, type: 'exit', code: 0, signal: null },
    ];
  }
  edit(c);
  const file = join(out, `${name}-${probe}.cassette.jsonl`);
  writeFileSync(file, serializeCassette(c));
  return file;
}

function editStdout(c: Cassette, fn: (line: string) => string): void {
  c.records = c.records.map((r) => (r.type === 'stdout' ? { ...r, line: fn(r.line) } : r));
}

async function onCaptures(
  name: string,
  probes: Probe[],
  edit: Partial<Record<Probe, (c: Cassette) => void>> = {},
) {
  const replay = Object.fromEntries(probes.map((p) => [p, captureCassette(p, name, edit[p])]));
  return runConformance({ replay, probes, dir: join(out, name) });
}

describe.skipIf(!HAVE_CAPTURES)(
  HAVE_CAPTURES ? 'conformance on capture replays' : `skipped: ${NO_CAPTURES_REASON}`,
  () => {
    it('the real captures as they are: every fact they cover passes', async () => {
      const report = await onCaptures('clean', Object.keys(CAPTURE_PROBES) as Probe[]);
      expect(report.errors).toEqual({});
      const v = verdicts(report);
      expect(v['mcp-call-shape']).toBe('skip');
      expect(
        report.facts.filter((f) => f.status !== 'pass' && f.status !== 'skip'),
        formatReport(report),
      ).toEqual([]);
    });

    it('a renamed field (step_index → stepIndex): steps-placeable fails and known-names names it', async () => {
      const report = await onCaptures('renamed', ['text'], {
        text: (c) => editStdout(c, (l) => l.replaceAll('"step_index"', '"stepIndex"')),
      });
      const v = verdicts(report);
      expect(v['steps-placeable']).toBe('fail');
      expect(details(report, 'steps-placeable')).toMatch(/text: step_index missing \(found stepIndex\)/);
      expect(v['known-names']).toBe('drift');
      expect(details(report, 'known-names')).toMatch(/field step_update\.stepIndex/);
    });

    it('a new step type: known-names reports it by name as drift', async () => {
      const report = await onCaptures('steptype', ['builtin-tool'], {
        'builtin-tool': (c) =>
          editStdout(c, (l) => l.replace('"step_type":"user_input"', '"step_type":"plan_review"')),
      });
      expect(verdicts(report)['known-names']).toBe('drift');
      expect(details(report, 'known-names')).toMatch(/builtin-tool: step type plan_review/);
      expect(verdicts(report)['tool-step-shape']).toBe('pass');
    });

    it('a changed error text after SIGINT: interrupt-wording fails, quoting the new text', async () => {
      const report = await onCaptures('wording', ['interrupt'], {
        interrupt: (c) =>
          editStdout(c, (l) => l.replace('"error":"interrupted"', '"error":"operation aborted"')),
      });
      expect(verdicts(report)['interrupt-wording']).toBe('fail');
      expect(details(report, 'interrupt-wording')).toMatch(/"operation aborted"/);
    });

    it('a changed exit code: exit-codes fails, naming the probe and both codes', async () => {
      const report = await onCaptures('exit', ['text'], {
        text: (c) => {
          c.records = c.records.map((r) => (r.type === 'exit' ? { ...r, code: 4 } : r));
        },
      });
      expect(verdicts(report)['exit-codes']).toBe('fail');
      expect(details(report, 'exit-codes')).toBe('text: exit 4, expected 0');
    });
  },
);
