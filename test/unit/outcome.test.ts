// The fail-closed outcome table: seed 001 "Wire protocol and lifecycle", agy-cli.md §0.4, §D.3, §F.3.
import { describe, expect, it } from 'vitest';
import {
  classifyStartFailure,
  classifyTurn,
  type OutcomeInput,
} from '../../src/connection/stream-json/outcome.js';

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
  it('SUCCESS + non-empty denied_actions → denied (agy-cli.md §D.3 "Denied actions")', () => {
    expect(classify({ deniedActions: [{ action: 'write_file', displayName: 'Write file' }] }).status).toBe(
      'denied',
    );
  });
  it('SUCCESS + "[agy] print timeout" stderr line → timeout (1.2.17 variant)', () => {
    const o = classify({
      stderrLines: ['[agy] print timeout after 5m0s with turn in progress; returning partial output'],
    });
    expect(o.status).toBe('timeout');
  });
  it('exit code 3 → quota_exhausted, even with status SUCCESS', () => {
    expect(classify({ exit: { code: 3, signal: null } }).status).toBe('quota_exhausted');
  });
  it('AGY_ERROR {json} quota line → quota_exhausted', () => {
    const line = 'AGY_ERROR: {"short_error":"RESOURCE_EXHAUSTED (code 429)"}';
    expect(classify({ result: { status: 'ERROR', error: 'x' }, stderrLines: [line] }).status).toBe(
      'quota_exhausted',
    );
  });
  it('"error: … quota" stderr line → quota_exhausted', () => {
    expect(classify({ stderrLines: ['error: Individual quota reached. Resets in 2h'] }).status).toBe(
      'quota_exhausted',
    );
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
