// agy ignores --add-dir paths with a hidden segment ("is hidden: ignore uri", docs/reference/plugins-and-config.md#hidden-path-rule): workspaces and
// the dataDir (session directories reach agy with --add-dir) are refused up front, as written and as resolved.
import { mkdir, mkdtemp, realpath, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Agent } from '../../../src/agent/agent.js';
import { validateConfig } from '../../../src/agent/validate-config.js';
import { SessionRuntime } from '../../../src/connection/agy/session/session-runtime.js';
import { hiddenSegmentReal } from '../../../src/connection/tool-server/hidden-path.js';
import { ConfigError } from '../../../src/errors.js';

let root: string;
let workspace: string;
beforeEach(async () => {
  root = await realpath(await mkdtemp(join(tmpdir(), 'agy-sdk-hidden-')));
  workspace = join(root, 'ws');
  await mkdir(workspace);
  await mkdir(join(root, '.work/ws'), { recursive: true });
  await symlink(join(root, '.work'), join(root, 'plain'));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

function configError(fn: () => unknown): ConfigError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return err as ConfigError;
  }
  throw new Error('expected a ConfigError');
}

describe('hidden path segments', () => {
  it('refuses a dataDir with a hidden segment as written', () => {
    const err = configError(() => validateConfig({ workspaces: [workspace], dataDir: join(root, '.data') }));
    expect(err.field).toBe('dataDir');
    expect(err.message).toContain('.data');
  });

  it('refuses a dataDir whose real path is hidden (a symlink), even before it exists', () => {
    const dataDir = join(root, 'plain', 'not-yet', 'data');
    const err = configError(() => validateConfig({ workspaces: [workspace], dataDir }));
    expect(err.field).toBe('dataDir');
    expect(err.message).toContain(join(root, '.work', 'not-yet', 'data'));
    expect(() => SessionRuntime.validate({ dataDir })).toThrow(ConfigError);
    expect(() => new Agent({ workspaces: [workspace], dataDir })).toThrow(/dataDir/);
  });

  it('refuses a workspace whose real path is hidden (a symlink)', () => {
    const err = configError(() => validateConfig({ workspaces: [join(root, 'plain', 'ws')] }));
    expect(err.field).toBe('workspaces[0]');
    expect(err.message).toContain(`real path ${join(root, '.work', 'ws')}`);
  });

  it('accepts plain paths, and relative-looking segments are not hidden', () => {
    expect(() => validateConfig({ workspaces: [workspace], dataDir: join(root, 'data') })).not.toThrow();
    expect(hiddenSegmentReal(join(root, 'ws', '..', 'ws'))).toBeUndefined();
    expect(hiddenSegmentReal('/')).toBeUndefined();
    expect(hiddenSegmentReal(join(root, 'plain'))).toEqual({ segment: '.work', path: join(root, '.work') });
  });
});
