// The fail-closed outcome table: docs/reference/stream-json.md#status-is-not-enough.
import { describe, expect, it } from 'vitest';
import {
  classifyStartFailure,
  classifyTurn,
  type OutcomeInput,
} from '../../../../src/connection/agy/stream-json/outcome.js';

const base: OutcomeInput = {
  result: { status: 'SUCCESS', response: 'ok' },
  exit: null,
  stderrLines: [],
  deniedActions: [],
  agentResponseError: undefined,
  requested: null,
  lineTooLong: false,
};
const classify = (over: Partial<OutcomeInput>) => classifyTurn({ ...base, ...over });

describe('classifyTurn (one case per row)', () => {
  it('SUCCESS with nothing against it → success', () => {
    expect(classify({})).toEqual({ status: 'success', message: '' });
  });
  it('SUCCESS + non-empty denied_actions → denied (docs/reference/stream-json.md#denied-actions)', () => {
    expect(classify({ deniedActions: [{ action: 'write_file', displayName: 'Write file' }] }).status).toBe(
      'denied',
    );
  });
  it('exit code 3 → quota_exhausted, even with status SUCCESS', () => {
    expect(classify({ exit: { code: 3, signal: null } }).status).toBe('quota_exhausted');
  });
  it("ERROR + agy's AGY_ERROR quota line → quota_exhausted with the reset delay", () => {
    // agy-real/joiomi-playbook-plugin-agy-1.2.17/quota-exhausted.stderr
    const line =
      'AGY_ERROR: {"short_error":"RESOURCE_EXHAUSTED (code 429): Individual quota reached. Please upgrade your subscription to increase your limits. Resets in 34m13s.","status":"RESOURCE_EXHAUSTED","error_code":429}';
    expect(classify({ result: { status: 'ERROR', error: 'x' }, stderrLines: [line] })).toMatchObject({
      status: 'quota_exhausted',
      retryAfterMs: 2_053_000,
    });
  });
  it('ERROR + "error: Individual quota reached" stderr line → quota_exhausted', () => {
    // agy-real/joiomi-playbook-plugin-agy-1.2.17/quota-exhausted.stderr (first line)
    const o = classify({
      result: { status: 'ERROR', error: '' },
      stderrLines: ['error: Individual quota reached. Resets in 2h'],
    });
    expect(o).toMatchObject({ status: 'quota_exhausted', retryAfterMs: 7_200_000 });
  });
  it('agent_response step in ERROR → error even with SUCCESS', () => {
    expect(classify({ agentResponseError: 'model overloaded' })).toEqual({
      status: 'error',
      message: 'model step failed: model overloaded',
    });
  });
  it('exit code 0 before the result → error', () => {
    const o = classify({ result: null, exit: { code: 0, signal: null } });
    expect(o.status).toBe('error');
    expect(o.message).toMatch(/exited with code 0 before the turn's result/);
  });
  it('killed by a signal before the result → error naming the signal', () => {
    expect(classify({ result: null, exit: { code: null, signal: 'SIGKILL' } }).message).toMatch(/SIGKILL/);
  });
  it('status INTERRUPTED → interrupted; ERROR "interrupted" → interrupted', () => {
    expect(classify({ result: { status: 'INTERRUPTED' } }).status).toBe('interrupted');
    expect(classify({ result: { status: 'ERROR', error: 'interrupted' } }).status).toBe('interrupted');
  });
  it('a cancel we requested → canceled, whatever agy called it', () => {
    expect(
      classify({ requested: 'canceled', result: { status: 'ERROR', error: 'interrupted' } }).status,
    ).toBe('canceled');
    expect(classify({ requested: 'canceled', result: null, exit: { code: 130, signal: null } }).status).toBe(
      'canceled',
    );
  });
  it('an interrupt that lost the race to a SUCCESS result is still success', () => {
    expect(classify({ requested: 'interrupted' }).status).toBe('success');
  });
  it('watchdog → timeout', () => {
    expect(classify({ requested: 'timeout', result: null }).status).toBe('timeout');
  });
  it('status CANCELED → canceled', () => {
    expect(classify({ result: { status: 'CANCELED' } }).status).toBe('canceled');
  });
  it('ERROR "authentication failed or timed out" → auth_failed', () => {
    expect(
      classify({ result: { status: 'ERROR', error: 'authentication failed or timed out' } }).status,
    ).toBe('auth_failed');
  });
  it('ERROR "timeout waiting for response" (older print timeout) → timeout', () => {
    expect(classify({ result: { status: 'ERROR', error: 'timeout waiting for response' } }).status).toBe(
      'timeout',
    );
  });
  it('ERROR with an object error {type,message} → error with the message', () => {
    expect(classify({ result: { status: 'ERROR', error: { type: 'X', message: 'boom' } } })).toEqual({
      status: 'error',
      message: 'boom',
    });
  });
  it.each(['WAITING', 'RUNNING', 'INVALID', 'SOMETHING_NEW'])(
    'unknown or non-terminal status %s → error',
    (status) => {
      expect(classify({ result: { status } })).toMatchObject({
        status: 'error',
        message: `agy: status ${status}`,
      });
    },
  );
  it('a dropped over-long line fails a SUCCESS turn closed', () => {
    expect(classify({ lineTooLong: true }).status).toBe('error');
    expect(classify({ lineTooDeep: true })).toEqual({
      status: 'error',
      message: 'a line nested too deeply to read was dropped',
    });
  });
});

describe('classifyStartFailure', () => {
  it('maps the pre-init auth result, quota and anything else', () => {
    expect(classifyStartFailure('authentication failed or timed out', { code: 1, signal: null }, [])).toBe(
      'auth_failed',
    );
    expect(classifyStartFailure('', { code: 3, signal: null }, [])).toBe('quota_exhausted');
    expect(classifyStartFailure('invalid model selection', { code: 1, signal: null }, [])).toBe('error');
  });
});

describe('print timeout is read from stdout (agy 1.2.17/1.3.1)', () => {
  // agy-real/joiomi-playbook-plugin-agy-1.2.17/print-timeout.stdout: SUCCESS, empty response, all-zero usage,
  // no model step. The stderr line may come late or not at all (agy-real/README.md).
  const zeros = {
    input_tokens: 0,
    output_tokens: 0,
    thinking_tokens: 0,
    cache_read_tokens: 0,
    total_tokens: 0,
  };
  const timedOut: Partial<OutcomeInput> = {
    result: { status: 'SUCCESS', response: '', num_turns: 1, usage: zeros },
  };
  it('SUCCESS + all-zero usage → timeout, with no stderr at all', () => {
    expect(classify(timedOut)).toMatchObject({
      status: 'timeout',
      message: expect.stringMatching(/print timeout/),
    });
  });
  it('the stderr line, when it is there, only words the message', () => {
    const line = '[agy] print timeout after 8s with turn in progress; returning partial output';
    expect(classify({ ...timedOut, stderrLines: [line] })).toEqual({ status: 'timeout', message: line });
  });
  it('near miss: a slash command answers SUCCESS with zero usage and no step → success', () => {
    // agy-real/jdiazromeral-agy-plugin-cc/command_result-2026-09-20-run1.ndjson; agy-real/joiomi-*/quota.stdout
    expect(classify({ ...timedOut, command: true }).status).toBe('success');
    const withCommand = { status: 'SUCCESS', usage: zeros, command: { name: 'usage', data: {} } };
    expect(classify({ ...timedOut, result: withCommand }).status).toBe('success');
  });
  it('near miss: SUCCESS without a usage object says nothing → success', () => {
    expect(classify({ result: { status: 'SUCCESS', response: '' } }).status).toBe('success');
  });
  it('near miss: SUCCESS with real usage → success', () => {
    const usage = { ...zeros, input_tokens: 12_555, output_tokens: 214, total_tokens: 12_769 };
    expect(classify({ result: { status: 'SUCCESS', usage } }).status).toBe('success');
  });
  it('zero usage with only a partial (ACTIVE) answer → timeout; with counted steps reported as zero → timeout', () => {
    expect(classify({ ...timedOut, finishedModelStep: false }).status).toBe('timeout');
    expect(classify({ ...timedOut, finishedModelStep: true, sawStepUsage: true }).status).toBe('timeout');
  });
  it('near miss: zero usage after a finished model step that carried none → success', () => {
    expect(classify({ ...timedOut, finishedModelStep: true, sawStepUsage: false }).status).toBe('success');
  });
  it('a model step in ERROR is an error, not a timeout', () => {
    expect(classify({ ...timedOut, agentResponseError: 'boom' }).status).toBe('error');
  });
  it('near miss: "[agy] print timeout setting ignored" on stderr of a real SUCCESS → success', () => {
    expect(classify({ stderrLines: ['[agy] print timeout setting ignored'] }).status).toBe('success');
  });
});

describe('stray stderr text never changes a status (issue 8)', () => {
  it.each([
    'error: cannot read /data/quota.csv',
    'AGY_ERROR: {"short_error":"tool failed: quota.csv not found","status":"NOT_FOUND"}',
    'AGY_ERROR: {"short_error":"RESOURCE_EXHAUSTED (code 429): Individual quota reached. Resets in 1m."}',
    'error: Individual quota reached. Resets in 34m13s.',
    '[agy] print timeout after 8s with turn in progress; returning partial output',
    'warning: rate limit close (429)',
  ])('SUCCESS with stderr %j → success', (line) => {
    expect(classify({ stderrLines: [line] }).status).toBe('success');
  });
  it('ERROR with a stderr line that merely mentions quota → error, not quota_exhausted', () => {
    const o = classify({
      result: { status: 'ERROR', error: 'model returned 500' },
      stderrLines: ['error: cannot read /data/quota.csv', 'AGY_ERROR: {"short_error":"quota.csv missing"}'],
    });
    expect(o.status).toBe('error');
  });
  it("ERROR whose text mentions quota without agy's wording → error", () => {
    expect(classify({ result: { status: 'ERROR', error: 'could not parse quota.csv' } }).status).toBe(
      'error',
    );
  });
  it('ERROR with an auth-looking word inside another message → error, not auth_failed', () => {
    expect(
      classify({ result: { status: 'ERROR', error: 'tool failed: credentials.json not found' } }).status,
    ).toBe('error');
  });
});

describe('a transient 429 is a rate limit, the quota stop is the quota', () => {
  it('ERROR after 429 "Resource has been exhausted" retries → rate_limited', () => {
    const notices = Array.from({ length: 7 }, () => 'Resource has been exhausted (e.g. check quota).');
    const o = classify({ result: { status: 'ERROR', error: 'model call failed' }, notices });
    expect(o).toEqual({ status: 'rate_limited', message: 'model call failed' });
  });
  it('ERROR whose text is the 429 wording → rate_limited; a stated delay is kept', () => {
    const o = classify({
      result: {
        status: 'ERROR',
        error: 'RESOURCE_EXHAUSTED (code 429): Resource has been exhausted. Resets in 45s.',
      },
    });
    expect(o).toMatchObject({ status: 'rate_limited', retryAfterMs: 45_000 });
  });
  it('an AGY_ERROR 429 without the quota wording on a failed turn → rate_limited', () => {
    const line =
      'AGY_ERROR: {"short_error":"RESOURCE_EXHAUSTED (code 429): Resource has been exhausted (e.g. check quota).","status":"RESOURCE_EXHAUSTED","error_code":429}';
    expect(classify({ result: { status: 'ERROR', error: 'x' }, stderrLines: [line] }).status).toBe(
      'rate_limited',
    );
  });
  it('ERROR "Individual quota reached" → quota_exhausted, even before the exit code', () => {
    // agy-real/joiomi-playbook-plugin-agy-1.2.17/quota-exhausted.stdout
    const error =
      'Individual quota reached. Please upgrade your subscription to increase your limits. Resets in 34m13s.';
    expect(classify({ result: { status: 'ERROR', error } })).toEqual({
      status: 'quota_exhausted',
      message: error,
      retryAfterMs: 2_053_000,
    });
  });
  it('retries that ended in a SUCCESS are a success', () => {
    const notices = ['Resource has been exhausted (e.g. check quota).'];
    expect(classify({ notices }).status).toBe('success');
  });
  it('a failed turn with no error text takes its message from the last error_message step', () => {
    expect(classify({ result: { status: 'ERROR' }, notices: ['model returned 500'] })).toEqual({
      status: 'error',
      message: 'model returned 500',
    });
  });
});

describe('parseGoDuration / resetsIn', () => {
  it('reads the durations agy prints and nothing else', async () => {
    const { parseGoDuration, resetsIn } = await import(
      '../../../../src/connection/agy/stream-json/outcome.js'
    );
    expect(parseGoDuration('34m13s')).toBe(2_053_000);
    expect(parseGoDuration('1h2m3.5s')).toBe(3_723_500);
    expect(parseGoDuration('300ms')).toBe(300);
    expect(parseGoDuration('soon')).toBeUndefined();
    expect(parseGoDuration('5 minutes')).toBeUndefined();
    expect(resetsIn(['nothing here', 'Resets in 2h.'])).toBe(7_200_000);
    expect(resetsIn(['Resets in a while'])).toBeUndefined();
  });
});
