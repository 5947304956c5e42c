// Replays every real agy stdout capture (../shared/fixtures/agy-real/, see its README.md and SOURCE.txt files)
// through the real Agent and the real spawn path, with test/fixtures/replay-agy.mjs standing in for agy.
// Each capture is one turn (the jdiazromeral ones are one-shot `-p` runs, replayed as one turn).
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { usageFromWire } from '../../../../src/connection/agy/stream-json/normalize.js';
import { addUsage, knownUsage, zeroUsage } from '../../../../src/model/usage.js';
import { REPLAY_AGY, useReplay } from '../../../helpers/capture-replay.js';
import {
  CAPTURES,
  captureLines,
  captureResult,
  HAVE_CAPTURES,
  NO_CAPTURES_REASON,
  SCRIPT_RUNS,
  stdoutFilesOnDisk,
} from '../../../helpers/captures.js';

// Shared: the 'what the captures carry' tests below read the same runs as the per-capture test, so each
// capture is spawned once per file.
const replay = useReplay({ shared: true });

/** The capture's own per-turn usage: every DONE step's usage, each step once. */
function stepUsageOf(file: string) {
  const sum = zeroUsage();
  const seen = new Set<string>();
  for (const line of captureLines(file)) {
    const s = line.step_update as Record<string, unknown> | undefined;
    if (s === undefined || s.state !== 'DONE') continue;
    const u = usageFromWire(s.usage as never);
    const key = `${s.conversation_id}:${s.step_index}`;
    if (u && !seen.has(key)) {
      seen.add(key);
      addUsage(sum, u);
    }
  }
  return knownUsage(sum);
}

describe.skipIf(!HAVE_CAPTURES)(
  HAVE_CAPTURES ? 'replaying real agy captures through the Agent' : `skipped: ${NO_CAPTURES_REASON}`,
  () => {
    beforeAll(() => {
      // The fake is spawned directly, like an agy binary.
      expect(readFileSync(REPLAY_AGY, 'utf8').startsWith('#!/usr/bin/env node')).toBe(true);
    });

    it('covers every stdout capture on disk', () => {
      expect([...CAPTURES.map((c) => c.stdout), ...SCRIPT_RUNS.map((r) => r.script)].sort()).toEqual(
        stdoutFilesOnDisk(),
      );
    });

    // Concurrent: each capture is its own agy process and sandbox, and most of a replay's time is waiting on
    // process start-up, not CPU.
    it.concurrent.each(CAPTURES.map((c) => [c.stdout, c] as const))('%s', async (_name, capture) => {
      const wire = captureResult(capture.stdout);
      const { result, toolResults } = await replay(capture);

      expect(result.status).toBe(capture.status);
      // Text == agy's own `response`, repeated DONE updates and all.
      if (!capture.textNotResponse) expect(result.text).toBe(wire.response);
      // Usage == result.usage for every whole turn (checkpoint steps included). The replayed agy names no
      // model, so no price is known: costUsd is null, never 0.
      const unpriced = <T extends object>(u: T | null) => u && { ...u, cacheWriteTokens: 0, costUsd: null };
      if (capture.usageNotWhole) {
        expect(result.usage).toEqual(unpriced(stepUsageOf(capture.stdout)));
        expect(result.usage).not.toEqual(unpriced(usageFromWire(wire.usage as never)));
      } else {
        expect(result.usage).toEqual(unpriced(usageFromWire(wire.usage as never)));
      }
      expect(result.totalUsage).toEqual(unpriced(usageFromWire(wire.usage as never)));
      expect(result.agyDurationSeconds).toBe(wire.duration_seconds);

      const denied = (wire.denied_actions as { action: string; display_name: string }[] | undefined) ?? [];
      const hookDenied = capture.hookDenied ?? 0;
      expect(result.deniedActions.slice(0, denied.length)).toEqual(
        denied.map((d) => ({
          action: d.action,
          displayName: d.display_name,
          source: 'agy',
          deniedBy: { kind: 'agy' },
        })),
      );
      expect(result.deniedActions.length).toBe(denied.length + hookDenied);
      // Each soft-denied action marks its tool call, in TurnResult.toolCalls and in toolResults().
      expect(result.toolCalls.filter((c) => c.denied).length).toBe(denied.length + hookDenied);
      expect(toolResults.filter((c) => c.denied).length).toBe(denied.length + hookDenied);
      // No call is left running after the turn (agy 1.3.1's `finish` step ends its call).
      expect(result.toolCalls.filter((c) => c.state === 'ACTIVE')).toEqual(
        capture.status === 'interrupted' ? result.toolCalls.filter((c) => c.name === 'run_command') : [],
      );

      const command = wire.command as { name: string; data: unknown } | undefined;
      expect(result.command).toEqual(command ? { name: command.name, data: command.data } : undefined);
      if (capture.status !== 'success') expect(result.errorMessage).not.toBe('');
    });
  },
);

describe.skipIf(!HAVE_CAPTURES)(
  HAVE_CAPTURES ? 'what the captures carry, surfaced' : `skipped: ${NO_CAPTURES_REASON}`,
  () => {
    it('a soft-denied run_command (1.2.17: DONE, no output) is a denied call, the others are not', async () => {
      // agy-real/joiomi-playbook-plugin-agy-1.2.17/denied-command.stdout
      const { result, toolResults } = await replay({
        stdout: 'joiomi-playbook-plugin-agy-1.2.17/denied-command.stdout',
      });
      expect(result.status).toBe('denied');
      expect(toolResults).toMatchObject([{ name: 'run_command', state: 'DONE', denied: true }]);
      expect(toolResults[0]!.durationSeconds).toBe(0.015946572);
    });

    it('a soft-denied write_to_file (1.2.7: ERROR TOOL_ERROR "…denied permission…") is a denied call', async () => {
      // agy-real/jdiazromeral-agy-plugin-cc/denied_actions-2026-09-20-run1.ndjson
      const { result, toolResults } = await replay({
        stdout: 'jdiazromeral-agy-plugin-cc/denied_actions-2026-09-20-run1.ndjson',
      });
      expect(result.status).toBe('denied');
      expect(toolResults).toMatchObject([
        { name: 'write_to_file', state: 'ERROR', denied: true, error: { type: 'TOOL_ERROR' } },
      ]);
    });

    it('a DONE tool step without output and no denial is not denied', async () => {
      // agy-real/joiomi-playbook-plugin-agy-1.2.17/web-tool.stdout (search_web ends DONE with no output)
      const { result, toolResults } = await replay({
        stdout: 'joiomi-playbook-plugin-agy-1.2.17/web-tool.stdout',
      });
      expect(result.status).toBe('success');
      expect(toolResults).toHaveLength(1);
      expect(toolResults[0]).toMatchObject({ name: 'search_web', state: 'DONE' });
      expect(toolResults[0]!.denied).toBeUndefined();
    });

    it('the quota stop: quota_exhausted, the reset delay, the error_message step', async () => {
      // agy-real/joiomi-playbook-plugin-agy-1.2.17/quota-exhausted.stdout, .stderr (exit 3 per SOURCE.txt)
      const { result, steps } = await replay({
        stdout: 'joiomi-playbook-plugin-agy-1.2.17/quota-exhausted.stdout',
        stderr: 'joiomi-playbook-plugin-agy-1.2.17/quota-exhausted.stderr',
        exit: 3,
      });
      expect(result.status).toBe('quota_exhausted');
      expect(result.retryAfterMs).toBe((34 * 60 + 13) * 1000);
      expect(result.resetsAt!.getTime()).toBeGreaterThan(Date.now());
      expect(result.errorMessage).toMatch(/^Individual quota reached\. .*Resets in 34m13s\.$/);
      expect(steps.map((s) => s.type)).toContain('error_message');
    });

    it('/model: the command_result is a typed `command` step and TurnResult.command', async () => {
      // agy-real/jdiazromeral-agy-plugin-cc/command_result-2026-09-20-run1.ndjson
      const { result, steps } = await replay({
        stdout: 'jdiazromeral-agy-plugin-cc/command_result-2026-09-20-run1.ndjson',
      });
      const model = {
        name: 'model',
        data: {
          id: 'gemini-3.8-flash-medium',
          label: 'Gemini 3.8 Flash (Medium)',
          effort: 'medium',
          is_default: false,
        },
      };
      expect(result.command).toEqual(model);
      expect(steps.filter((s) => s.type === 'command').map((s) => s.command)).toEqual([model]);
      expect(result.status).toBe('success');
    });

    it('init.agent and the unknown (agent fallback) step are surfaced', async () => {
      // agy-real/jdiazromeral-agy-plugin-cc/agent_fallback-2026-08-02-run1.ndjson
      const { agent, steps, result } = await replay({
        stdout: 'jdiazromeral-agy-plugin-cc/agent_fallback-2026-08-02-run1.ndjson',
      });
      expect(agent.info?.agent).toBe('definitely-nonexistent-agent-xyz');
      expect(steps.filter((s) => s.type === 'unknown')).toHaveLength(1);
      // Checkpoint usage counts: 14,573 + 98 input tokens (agy says 14,671).
      expect(result.usage?.inputTokens).toBe(14_671);
    });

    it('checkpoint usage counts: 12,308/1,435 as agy says, not 12,088/1,431', async () => {
      // agy-real/jdiazromeral-agy-plugin-cc/stream_events-2026-08-02-run1.ndjson
      const { result } = await replay({
        stdout: 'jdiazromeral-agy-plugin-cc/stream_events-2026-08-02-run1.ndjson',
      });
      expect(result.usage).toMatchObject({ inputTokens: 12_308, outputTokens: 1_435 });
    });
  },
);
