// `agy-sdk doctor --conformance` with no agy anywhere (PATH and AGY_PATH pointing nowhere), through the built
// command: one line on stderr naming what is missing and the two ways on (install agy, or --offline), nothing on
// stdout (no check results), exit 10 (agy not found), and no file written: neither in --cassettes nor in TMPDIR.
import { mkdir, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EXIT_START_FAILED } from '../../src/cli/exit-codes.js';
import { BUILT, runCli } from '../helpers/cli.js';

let root: string;
let tmp: string;
let nowhere: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'agy-sdk-conformance-no-agy-'));
  tmp = join(root, 'tmp');
  nowhere = join(root, 'empty-bin');
  await mkdir(tmp);
  await mkdir(nowhere);
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

/** Every file and directory under `dir`, relative. */
const contents = async (dir: string): Promise<string[]> => readdir(dir, { recursive: true });

describe.skipIf(!BUILT)('doctor --conformance without agy', () => {
  it('no agy on PATH: one line, exit 10, no results, nothing written', async () => {
    const cassettes = join(root, 'cassettes');
    const run = await runCli(['doctor', '--conformance', '--cassettes', cassettes], {
      PATH: nowhere,
      AGY_PATH: '',
      TMPDIR: tmp,
    });
    expect(run.stdout).toBe('');
    expect(run.stderr).toBe(
      'agy-sdk: doctor --conformance runs real turns on agy, and there is no agy (none on PATH): install agy ' +
        '(https://antigravity.google) and sign in, or add --offline to run the probes on the bundled simulator\n',
    );
    expect(run.code).toBe(EXIT_START_FAILED);
    expect(await contents(root)).toEqual(expect.arrayContaining(['tmp', 'empty-bin']));
    expect(await contents(root)).toHaveLength(2);
  });

  it('AGY_PATH naming no file: the line names it; --json prints nothing either', async () => {
    const missing = join(root, 'no-such-agy');
    const run = await runCli(['doctor', '--conformance', '--json'], {
      PATH: nowhere,
      AGY_PATH: missing,
      TMPDIR: tmp,
    });
    expect(run.stdout).toBe('');
    expect(run.stderr.split('\n')).toEqual([
      `agy-sdk: doctor --conformance runs real turns on agy, and there is no agy (AGY_PATH=${missing} is not an ` +
        'executable file): install agy (https://antigravity.google) and sign in, or add --offline to run the ' +
        'probes on the bundled simulator',
      '',
    ]);
    expect(run.code).toBe(EXIT_START_FAILED);
    expect(await contents(tmp)).toEqual([]);
  });
});
