// The PreToolUse answer by agy version (docs/reference/hooks.md#pretooluse-answer-by-version), and the agy hook
// adapter writing its answers that way: `{}` approves from 1.3.3, `{"decision":"allow"}` before and when the
// version is unknown, and a denial is the same explicit deny everywhere.
import { describe, expect, it } from 'vitest';
import { AgyHookHandlers } from '../../../src/connection/agy/hook-handlers.js';
import {
  approvesCall,
  preToolUseDialect,
  toAgyPreToolUseAnswer,
} from '../../../src/connection/agy/pre-tool-answer.js';
import type { ToolCallDecision, ToolCallHost } from '../../../src/connection/host.js';
import { recordingLogger } from '../../helpers/runtime-files.js';

describe('preToolUseDialect', () => {
  it('writes {} from 1.3.3 on, {"decision":"allow"} before and for an unknown version', () => {
    for (const v of ['1.3.3', '1.3.10', '1.4.0', '2.0.0']) expect(preToolUseDialect(v), v).toBe('empty');
    for (const v of ['1.3.2', '1.3.1', '1.2.3', '1.0.7', '0.9.99'])
      expect(preToolUseDialect(v), v).toBe('decision');
    for (const v of [null, '', 'garbage', '1.3', '1.3.3-preview'])
      expect(preToolUseDialect(v), String(v)).toBe('decision');
  });
});

describe('toAgyPreToolUseAnswer', () => {
  it('turns an approval into {} on 1.3.3+ and leaves every other answer as it is', () => {
    expect(toAgyPreToolUseAnswer({ decision: 'allow' }, 'empty')).toEqual({});
    expect(toAgyPreToolUseAnswer({ decision: 'allow' }, 'decision')).toEqual({ decision: 'allow' });
    const deny = { decision: 'deny', reason: 'no' };
    expect(toAgyPreToolUseAnswer(deny, 'empty')).toEqual(deny);
    expect(toAgyPreToolUseAnswer(deny, 'decision')).toEqual(deny);
    // "agy's own permission check decides" on every version.
    expect(toAgyPreToolUseAnswer({ decision: 'ask' }, 'empty')).toEqual({ decision: 'ask' });
    expect(toAgyPreToolUseAnswer({ decision: 'force_ask', reason: 'r' }, 'empty')).toEqual({
      decision: 'force_ask',
      reason: 'r',
    });
  });

  it('denies an approval with rewritten arguments on 1.3.3+ (no known form), keeps it before', () => {
    const rewrite = { decision: 'allow', overwrite: { AbsolutePath: '/tmp/safe' } };
    expect(toAgyPreToolUseAnswer(rewrite, 'decision')).toEqual(rewrite);
    expect(toAgyPreToolUseAnswer(rewrite, 'empty')).toEqual({
      decision: 'deny',
      reason: expect.stringMatching(/rewritten arguments/),
    });
  });
});

describe('approvesCall', () => {
  it('reads an answer as agy does in each dialect', () => {
    expect(approvesCall({}, 'empty')).toBe(true);
    expect(approvesCall({ decision: 'allow' }, 'empty')).toBe(false);
    expect(approvesCall({ decision: 'deny', reason: 'x' }, 'empty')).toBe(false);
    expect(approvesCall({ decision: 'allow' }, 'decision')).toBe(true);
    expect(approvesCall({}, 'decision')).toBe(false);
    expect(approvesCall({ decision: 'ask' }, 'decision')).toBe(false);
  });
});

/** A host whose gate answers `verdict` and records what it is told. */
function host(verdict: ToolCallDecision) {
  const answered: ToolCallDecision[] = [];
  const h: ToolCallHost = {
    needs: () => ({ toolGate: true, toolResults: false, stop: false, steering: false }),
    toolCallRequested: () => {},
    gateToolCall: async () => verdict,
    toolCallAnswered: (_key, _call, v) => answered.push(v),
    toolCallEnded: async () => undefined,
    beforeModelCall: () => [],
    onStop: async () => undefined,
  };
  return { h, answered };
}

const input = {
  conversationId: 'c',
  stepIdx: 2,
  toolCall: { name: 'run_command', args: { CommandLine: 'ls' } },
};
const signal = new AbortController().signal;

/** Answers one PreToolUse call as the listener does: the answer, then the observer on what was sent. */
async function call(handlers: AgyHookHandlers): Promise<unknown> {
  const answer = await handlers.answer('PreToolUse', input, { signal });
  handlers.answered?.('PreToolUse', input, answer);
  return answer;
}

describe('AgyHookHandlers PreToolUse answers by agy version', () => {
  it('1.3.3: an approval is sent as {} and recorded as allowed; a denial stays explicit', async () => {
    const allow = host({ allow: true });
    const a = new AgyHookHandlers(allow.h, { hasOwnTools: false, agyVersion: async () => '1.3.3' });
    expect(await call(a)).toEqual({});
    expect(allow.answered).toEqual([{ allow: true }]);

    const deny = host({ allow: false, reason: 'not today' });
    const d = new AgyHookHandlers(deny.h, { hasOwnTools: false, agyVersion: async () => '1.3.3' });
    expect(await call(d)).toEqual({ decision: 'deny', reason: 'not today' });
    expect(deny.answered).toEqual([{ allow: false, reason: 'not today' }]);
  });

  it('1.3.1: an approval is {"decision":"allow"}', async () => {
    const allow = host({ allow: true });
    const a = new AgyHookHandlers(allow.h, { hasOwnTools: false, agyVersion: async () => '1.3.1' });
    expect(await call(a)).toEqual({ decision: 'allow' });
    expect(allow.answered).toEqual([{ allow: true }]);
  });

  it('an unknown version (probe failed or threw) gets {"decision":"allow"} and one warning', async () => {
    const logger = recordingLogger();
    const allow = host({ allow: true });
    const failing = new AgyHookHandlers(allow.h, {
      hasOwnTools: false,
      logger,
      agyVersion: () => Promise.reject(new Error('probe broke')),
    });
    expect(await call(failing)).toEqual({ decision: 'allow' });
    const unknown = new AgyHookHandlers(allow.h, {
      hasOwnTools: false,
      logger,
      agyVersion: async () => null,
    });
    expect(await call(unknown)).toEqual({ decision: 'allow' });
    expect(await call(unknown)).toEqual({ decision: 'allow' });
    // Once per connection (each adapter here stands for one).
    expect(logger.lines('warn').filter((l) => l.includes('version is unknown'))).toHaveLength(2);
  });
});
