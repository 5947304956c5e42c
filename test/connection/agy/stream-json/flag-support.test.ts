/**
 * Which agy builds get which turn-shaping flags (docs/reference/stream-json.md#flags-by-version): the argv a
 * known build gets, and the typed refusal, naming the flag and the version, for one that is not known to.
 */
import { describe, expect, it } from 'vitest';
import { buildAgyArgs } from '../../../../src/connection/agy/stream-json/command-line.js';
import {
  checkFlagSupport,
  type GatedFlag,
  gatedFlags,
} from '../../../../src/connection/agy/stream-json/flag-support.js';
import { UnsupportedError } from '../../../../src/errors.js';

const base = { addDirs: ['/w'] };

/** The refusal of `spec` on `version`, or undefined when it passes. */
function refusal(
  spec: Parameters<typeof gatedFlags>[0],
  version: string | null,
): UnsupportedError | undefined {
  try {
    checkFlagSupport(gatedFlags(spec), version, () => {});
  } catch (err) {
    expect(err).toBeInstanceOf(UnsupportedError);
    return err as UnsupportedError;
  }
  return undefined;
}

describe('agy turn flags', () => {
  it('puts --mode, --sandbox and --effort in argv', () => {
    const args = buildAgyArgs({ ...base, effort: 'high', mode: 'plan', sandbox: true });
    expect(args.join(' ')).toContain('--effort high --mode plan --sandbox');
    expect(buildAgyArgs({ ...base, mode: 'accept-edits' }).join(' ')).toContain('--mode accept-edits');
    expect(buildAgyArgs({ ...base, sandbox: false })).not.toContain('--sandbox');
  });

  it('passes each flag from the first build seen with it', () => {
    expect(refusal({ ...base, mode: 'plan' }, '1.1.2')).toBeUndefined();
    expect(refusal({ ...base, sandbox: true }, '1.1.9')).toBeUndefined();
    expect(refusal({ ...base, mode: 'accept-edits', sandbox: true }, '1.3.1')).toBeUndefined();
    expect(refusal({ ...base, mode: 'accept-edits' }, '1.5.8')).toBeUndefined();
    expect(refusal({ ...base, effort: 'high' }, '1.0.0')).toBeUndefined();
  });

  it('refuses a build older than that, naming the field, the flag and the version', () => {
    const plan = refusal({ ...base, mode: 'plan' }, '1.1.1');
    expect(plan?.feature).toBe('mode');
    expect(plan?.message).toMatch(
      /--mode plan: agy 1\.1\.1 is not known to accept it \(first seen on 1\.1\.2\)/,
    );
    expect(refusal({ ...base, mode: 'accept-edits' }, '1.2.17')?.message).toContain(
      '--mode accept-edits: agy 1.2.17',
    );
    expect(refusal({ ...base, sandbox: true }, '1.1.8')?.feature).toBe('sandbox');
  });

  it('refuses --effort xhigh and max on every build, the unknown version included', () => {
    for (const version of ['1.3.1', '1.5.8', '9.0.0', null]) {
      const err = refusal({ ...base, effort: 'xhigh' }, version);
      expect(err?.feature).toBe('effort');
      expect(err?.message).toContain('--effort xhigh: no agy build is known to accept it');
      expect(err?.message).toContain(version ?? 'unknown version');
    }
    expect(refusal({ ...base, effort: 'max' }, '1.3.1')?.message).toContain('--effort max');
  });

  it('with the version unknown, passes a dated flag and says so', () => {
    const told: GatedFlag[] = [];
    checkFlagSupport(gatedFlags({ ...base, mode: 'plan', sandbox: true }), null, (f) => told.push(f));
    expect(told.map((f) => f.flag)).toEqual(['--mode plan', '--sandbox']);
  });
});
