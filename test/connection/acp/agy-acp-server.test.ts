// Google's agy_acp_server 1.1.1 (the `agy-acp` preset), from its only real material:
// ../shared/fixtures/agy-real/mluigi-htui-agy-acp-server-1.1.1/agy_acp_turn.jsonl (the session/update lines of
// three prompts: a reply, a read, a gated write re-sent as `tool_call`; see its SOURCE.txt). The lines are fed
// through the ACP backend's one normalizer (AcpTurnSteps) and stop classifier, prompt by prompt.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AcpTurnSteps, classifyStop, toolNameFromTitle } from '../../../src/connection/acp/normalize.js';
import { toolResolver } from '../../../src/connection/acp/tool-names.js';
import type { ToolCall } from '../../../src/model/step.js';
import { sameBuiltinTool } from '../../../src/model/tool-aliases.js';
import type { AcpSessionUpdate } from '../../../src/protocol/acp.js';
import { ACP_SERVER, AGY_REAL, HAVE_CAPTURES, NO_CAPTURES_REASON } from '../../helpers/captures.js';

function updates(): AcpSessionUpdate[] {
  return readFileSync(join(AGY_REAL, ACP_SERVER, 'agy_acp_turn.jsonl'), 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => (JSON.parse(l) as { params: { update: AcpSessionUpdate } }).params.update);
}

/** The capture's three prompts: the reply (lines 0–1), the read (2–4), the write (5–8). */
function prompts(): AcpSessionUpdate[][] {
  const all = updates();
  return [all.slice(0, 2), all.slice(2, 5), all.slice(5)];
}

function run(lines: AcpSessionUpdate[]) {
  const steps = new AcpTurnSteps('s', toolResolver(undefined, []), 0);
  const delivered = lines.flatMap((u) => steps.update(u));
  const calls: ToolCall[] = steps.toolCalls;
  const verdict = classifyStop('end_turn', {
    text: steps.text,
    denials: 0,
    stopAsked: undefined,
    completedTools: calls.filter((c) => c.state === 'DONE').length,
  });
  return { steps, delivered, calls, verdict };
}

describe.skipIf(!HAVE_CAPTURES)(
  HAVE_CAPTURES ? 'agy_acp_server 1.1.1, replayed' : `skipped: ${NO_CAPTURES_REASON}`,
  () => {
    it('a call is named by the tool in its title, the title kept for display', () => {
      // agy-real/mluigi-htui-agy-acp-server-1.1.1/agy_acp_turn.jsonl (lines 3 and 6–8)
      const [, read, write] = prompts();
      expect(run(read!).calls).toMatchObject([
        { name: 'client_view_file', title: 'Running client_view_file', state: 'DONE' },
      ]);
      const w = run(write!).calls;
      expect(w).toHaveLength(1);
      expect(w[0]).toMatchObject({
        name: 'client_create_file',
        title: 'Running client_create_file',
        state: 'DONE',
        args: { code_content: 'ok\n', target_file: '/scratch/htui-agy-probe.txt' },
      });
    });

    it('a gated write re-sent as a second `tool_call` is one call, not two', () => {
      // agy-real/mluigi-htui-agy-acp-server-1.1.1/agy_acp_turn.jsonl (lines 6 and 7: the same toolCallId)
      const [, , write] = prompts();
      const { delivered } = run(write!);
      expect(new Set(delivered.filter((s) => s.tool).map((s) => s.tool!.id)).size).toBe(1);
    });

    it('a turn whose only content is a completed write ends end_turn as success', () => {
      // agy-real/mluigi-htui-agy-acp-server-1.1.1/agy_acp_turn.jsonl (the third prompt: no reply text)
      const [reply, , write] = prompts();
      const w = run(write!);
      expect(w.steps.text).toBe('');
      expect(w.verdict.status).toBe('success');
      expect(run(reply!).verdict.status).toBe('success');
    });

    it('sends no usage at all: usage stays unknown (null), never 0', () => {
      // agy-real/mluigi-htui-agy-acp-server-1.1.1/SOURCE.txt ("no usage_update at all")
      const all = run(updates());
      expect(all.delivered.filter((s) => s.usage !== undefined && s.usage !== null)).toEqual([]);
      expect(all.steps.finish(null, {})).toEqual([]);
    });
  },
);

describe('agy_acp_server names', () => {
  it('an empty end_turn with no text and no completed call stays an error', () => {
    expect(
      classifyStop('end_turn', { text: '', denials: 0, stopAsked: undefined, completedTools: 0 }).status,
    ).toBe('error');
  });

  it('the title names the tool; a title without one names none (the ACP kind is used then)', () => {
    expect(toolNameFromTitle('Run client_create_file?')).toBe('client_create_file');
    expect(toolNameFromTitle('Running client_view_file')).toBe('client_view_file');
    expect(toolNameFromTitle('Thinking')).toBeUndefined();
    const steps = new AcpTurnSteps('s', toolResolver(undefined, []), 0);
    steps.update({
      sessionUpdate: 'tool_call',
      toolCallId: 'abc',
      title: 'Editing',
      kind: 'edit',
      status: 'pending',
    });
    expect(steps.toolCalls[0]).toMatchObject({ name: 'edit', title: 'Editing' });
  });

  it("policies written with agy's names match the server's client_* names and ACP kinds, and back", () => {
    expect(sameBuiltinTool('write_to_file', 'client_create_file')).toBe(true);
    expect(sameBuiltinTool('view_file', 'client_view_file')).toBe(true);
    expect(sameBuiltinTool('write_to_file', 'edit')).toBe(true);
    expect(sameBuiltinTool('run_command', 'execute')).toBe(true);
    expect(sameBuiltinTool('client_create_file', 'write_to_file')).toBe(true);
    expect(sameBuiltinTool('edit', 'client_create_file')).toBe(true);
    expect(sameBuiltinTool('view_file', 'client_create_file')).toBe(false);
  });
});
