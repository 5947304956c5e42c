// The capture replays again, through cassettes: every real agy capture (../shared/fixtures/agy-real/, see its
// README.md and SOURCE.txt files) is imported with importCapture, written as a cassette, checked by the schema
// check, and replayed by the simulator's cassette mode through the real Agent and spawn path; the outcome must
// be what test/connection/agy/stream-json/normalize.captures.process.test.ts asserts for the same capture (status, text, usage, denials, command).
// Also: every third-party capture converts (Untether's .script runs, the hook payloads, the ACP transcript).
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Agent } from '../../../src/agent/agent.js';
import { usageFromWire } from '../../../src/connection/agy/stream-json/normalize.js';
import { StartError } from '../../../src/errors.js';
import {
  importCapture,
  parseCassette,
  replayCassette,
  serializeCassette,
} from '../../../src/testing/cassette/index.js';
import {
  AGY_REAL,
  CAPTURES,
  captureNames,
  captureResult,
  HAVE_CAPTURES,
  NO_CAPTURES_REASON,
} from '../../helpers/captures.js';
import { sandbox } from '../../helpers/sandbox.js';

// Made by a hook, not while vitest collects the file (a `vitest list` would leave it behind).
let out: string;
beforeAll(() => {
  out = mkdtempSync(join(tmpdir(), 'agy-sdk-cassettes-'));
});
afterAll(() => rmSync(out, { recursive: true, force: true }));

/** Imports a capture and writes it as a cassette file, checked by the schema check on the way. */
function cassetteOf(path: string, options: Parameters<typeof importCapture>[1] = {}): string {
  const text = serializeCassette(importCapture(path, options));
  parseCassette(text, path);
  const file = join(out, `${path.replace(/[^\w.-]+/g, '_')}.cassette.jsonl`);
  writeFileSync(file, text);
  return file;
}

async function replayFile(file: string) {
  const box = await sandbox();
  const agent = new Agent(await box.agentConfig(undefined, replayCassette(file)));
  try {
    return await (await agent.chat('replay')).result();
  } finally {
    await agent.close();
    await box.cleanup();
  }
}

describe.skipIf(!HAVE_CAPTURES)(
  HAVE_CAPTURES ? 'replaying real agy captures through cassettes' : `skipped: ${NO_CAPTURES_REASON}`,
  () => {
    it.concurrent.each(CAPTURES.map((c) => [c.stdout, c] as const))('%s', async (_name, capture) => {
      const file = cassetteOf(join(AGY_REAL, capture.stdout), {
        exitCode: capture.exit,
        stderrFile: capture.stderr && join(AGY_REAL, capture.stderr),
      });
      const wire = captureResult(capture.stdout);
      const result = await replayFile(file);
      expect(result.status).toBe(capture.status);
      if (!capture.textNotResponse) expect(result.text).toBe(wire.response);
      const unpriced = <T extends object>(u: T | null) => u && { ...u, cacheWriteTokens: 0, costUsd: null };
      expect(result.totalUsage).toEqual(unpriced(usageFromWire(wire.usage as never)));
      if (!capture.usageNotWhole) expect(result.usage).toEqual(unpriced(usageFromWire(wire.usage as never)));
      const denied = (wire.denied_actions as { action: string; display_name: string }[] | undefined) ?? [];
      // agy's denied_actions, then one entry per hook denial agy wrote only as a TOOL_ERROR step (issue 19).
      expect(result.deniedActions.slice(0, denied.length)).toEqual(
        denied.map((d) => ({
          action: d.action,
          displayName: d.display_name,
          source: 'agy',
          deniedBy: { kind: 'agy' },
        })),
      );
      expect(result.deniedActions.length).toBe(denied.length + (capture.hookDenied ?? 0));
      const command = wire.command as { name: string; data: unknown } | undefined;
      expect(result.command).toEqual(command ? { name: command.name, data: command.data } : undefined);
    });

    const UNTETHER = 'littlebearapps-untether-agy-1.3.1';
    // Listed while vitest collects the file, when the block may be skipped: none when the captures are absent.
    const scripts = captureNames(UNTETHER).filter((n) => n.endsWith('.script'));
    /** What each Untether run must end as (its name says what it recorded). */
    const expected = (name: string): string[] =>
      name.startsWith('interrupted')
        ? ['interrupted']
        : name === 'unauth.script'
          ? ['auth_failed', 'error']
          : name === 'invalid_model.script' || name === 'stream_slash_fatal.script'
            ? ['error']
            : name.includes('denied') || name.includes('deny')
              ? ['denied']
              : ['success', 'denied', 'error', 'interrupted'];

    it.concurrent.each(scripts)(`${UNTETHER}/%s converts and replays`, async (name) => {
      const file = cassetteOf(join(AGY_REAL, UNTETHER, name));
      // A failure before init fails start() as real agy's does: its StartError carries the status.
      const status = await replayFile(file).then(
        (r) => r.status,
        (err: unknown) => (err instanceof StartError ? `start:${err.status}` : err),
      );
      const before = name === 'unauth.script' || name === 'invalid_model.script';
      expect(before ? expected(name).map((s) => `start:${s}`) : expected(name)).toContain(status);
    });

    it('every other session capture converts: hook payloads, the ACP transcript, the plenipo excerpts', () => {
      const hooks = parseCassette(
        serializeCassette(importCapture(join(AGY_REAL, 'hooks-anti-samcheonpo-agy-1.3.0'))),
      );
      expect(
        hooks.records.filter((r) => r.type === 'hook').map((r) => (r as { event: string }).event),
      ).toContain('PreToolUse');
      expect(hooks.header.agy.version).toBe('1.3.0');
      const acp = parseCassette(
        serializeCassette(
          importCapture(join(AGY_REAL, 'mluigi-htui-agy-acp-server-1.1.1', 'agy_acp_turn.jsonl')),
        ),
      );
      expect(acp.header.backend).toBe('acp');
      expect(acp.records.length).toBeGreaterThan(3);
      for (const name of readdirSync(join(AGY_REAL, 'unnamed-plenipo-agy-1.2.13'))) {
        if (!name.endsWith('.ndjson')) continue;
        const c = importCapture(join(AGY_REAL, 'unnamed-plenipo-agy-1.2.13', name));
        expect(c.records.some((r) => r.type === 'stdout')).toBe(true);
      }
    });

    it('what is not a session capture is refused by name', () => {
      expect(() => importCapture(join(AGY_REAL, 'configs-hooks-json', 'SOURCE.txt'))).toThrow(
        /SOURCE\.txt:0: capture: is not a session capture/,
      );
      expect(() => importCapture(join(AGY_REAL, 'nope'))).toThrow(/capture: does not exist/);
    });
  },
);
