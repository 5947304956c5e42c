// The drift check names every field it has not seen by its whole path from the event, so a report says where
// in agy's output the new field is (docs/reference/versions.md#what-a-newer-build-gets).
import { describe, expect, it } from 'vitest';
import { DriftTracker } from '../../../../src/connection/agy/stream-json/drift.js';
import type { Logger } from '../../../../src/logger.js';

function tracker(): { drift: DriftTracker; warnings: string[] } {
  const warnings: string[] = [];
  const logger: Logger = { debug() {}, info() {}, warn: (m) => void warnings.push(m), error() {} };
  return { drift: new DriftTracker(logger, () => '1.6.0'), warnings };
}

describe('drift names field paths', () => {
  it('a new field of a step, its tool_info and its usage, and of a result and its usage', () => {
    const { drift, warnings } = tracker();
    drift.step({
      conversation_id: 'c',
      step_index: 1,
      state: 'DONE',
      step_type: 'tool',
      sandbox_id: 's',
      tool_info: { name: 'run_command', exit_code: 0 },
      usage: { input_tokens: 1, audio_tokens: 2 },
    });
    drift.result({ status: 'SUCCESS', effort: 'max', usage: { total_tokens: 3, audio_tokens: 2 } });
    expect(drift.entries.map((e) => e.name)).toEqual([
      'step_update.sandbox_id',
      'step_update.tool_info.exit_code',
      'step_update.usage.audio_tokens',
      'result.effort',
      'result.usage.audio_tokens',
    ]);
    expect(warnings).toContain(
      'agy 1.6.0 writes a field this SDK does not know: step_update.tool_info.exit_code',
    );
  });

  it('a new field of init', () => {
    const { drift } = tracker();
    drift.init({
      cwd: '/w',
      tools: [],
      permission_mode: 'request-review',
      json_schema: {},
      sandbox: 'strict',
    });
    expect(drift.entries.map((e) => e.name)).toEqual(['init.sandbox']);
  });

  it('known fields are not reported', () => {
    const { drift, warnings } = tracker();
    drift.init({ conversation_id: 'c', cwd: '/w', model: 'm', tools: [], permission_mode: 'x', agent: 'a' });
    drift.step({ conversation_id: 'c', step_index: 0, state: 'DONE', step_type: 'user_input' });
    drift.result({ status: 'SUCCESS', response: '', usage: { total_tokens: 0 } });
    expect(drift.entries).toEqual([]);
    expect(warnings).toEqual([]);
  });
});
