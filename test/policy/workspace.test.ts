import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AttachmentFiles } from '../../src/content/attachment-files.js';
import { createHookToolCall, HookRunner } from '../../src/hooks/index.js';
import {
  enforce,
  evaluate,
  isPathKey,
  pathArgs,
  policy,
  resolveRealPath,
  WORKSPACE_ONLY_POLICY_NAME,
} from '../../src/policy/index.js';
import { ATTACHMENT_READ_TOOLS, sdkWorkspaceConfinement } from '../../src/policy/workspace.js';
import { spyLogger } from '../helpers/hooks.js';

let root: string; // real path of a temp dir
let ws: string; // the workspace
let outside: string; // a sibling dir outside it

beforeAll(async () => {
  root = await realpath(await mkdtemp(path.join(tmpdir(), 'agy-ws-')));
  ws = path.join(root, 'ws');
  outside = path.join(root, 'outside');
  await mkdir(path.join(ws, 'src'), { recursive: true });
  await mkdir(outside);
  await writeFile(path.join(ws, 'src', 'a.ts'), 'a');
  await writeFile(path.join(outside, 'secret.txt'), 's');
  await symlink(outside, path.join(ws, 'escape')); // dir symlink leaving the workspace
  await symlink(path.join(outside, 'secret.txt'), path.join(ws, 'secret-link')); // file symlink leaving it
  await symlink(path.join(outside, 'new.txt'), path.join(ws, 'dangling')); // dangling, points outside
  await symlink(path.join(ws, 'src'), path.join(ws, 'inner')); // symlink that stays inside
  await symlink('loop-b', path.join(ws, 'loop-a'));
  await symlink('loop-a', path.join(ws, 'loop-b'));
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

const call = (name: string, args: Record<string, unknown>) => createHookToolCall({ id: '1', name, args });

async function decision(name: string, args: Record<string, unknown>) {
  return (await evaluate(policy.workspaceOnly([ws]), call(name, args))).decision;
}

describe('resolveRealPath', () => {
  it('resolves existing paths, relative paths and .. lexically where nothing is a symlink', async () => {
    expect(await resolveRealPath(path.join(ws, 'src', 'a.ts'), ws)).toBe(path.join(ws, 'src', 'a.ts'));
    expect(await resolveRealPath('src/a.ts', ws)).toBe(path.join(ws, 'src', 'a.ts'));
    expect(await resolveRealPath('src/../../outside', ws)).toBe(outside);
    expect(await resolveRealPath('src/not/yet/../file.ts', ws)).toBe(path.join(ws, 'src', 'not', 'file.ts'));
  });

  it('follows symlinks, and applies .. to the real parent', async () => {
    expect(await resolveRealPath(path.join(ws, 'escape', 'secret.txt'), ws)).toBe(
      path.join(outside, 'secret.txt'),
    );
    // escape/.. is the parent of `outside` (the temp root), not the workspace; path.join would hide that
    expect(await resolveRealPath(`${ws}/escape/../ws`, ws)).toBe(ws);
    expect(await resolveRealPath(`${ws}/escape/../x`, ws)).toBe(path.join(root, 'x'));
    expect(await resolveRealPath('escape/../outside/secret.txt', ws)).toBe(path.join(outside, 'secret.txt'));
    expect(await resolveRealPath(path.join(ws, 'inner', 'a.ts'), ws)).toBe(path.join(ws, 'src', 'a.ts'));
  });

  it('follows dangling symlinks to where a write would land', async () => {
    expect(await resolveRealPath(path.join(ws, 'dangling'), ws)).toBe(path.join(outside, 'new.txt'));
  });

  it('uses the deepest existing ancestor for paths that do not exist yet', async () => {
    expect(await resolveRealPath(path.join(ws, 'escape', 'deep', 'new.txt'), ws)).toBe(
      path.join(outside, 'deep', 'new.txt'),
    );
  });

  it('expands file:// URLs and throws on symlink loops', async () => {
    expect(await resolveRealPath(pathToFileURL(path.join(ws, 'src')).href, '/')).toBe(path.join(ws, 'src'));
    await expect(resolveRealPath(path.join(ws, 'loop-a', 'x'), ws)).rejects.toThrow();
  });
});

describe('path keys', () => {
  it('recognizes agy path keys and *Path/*File/*Dir/*Directory keys', () => {
    for (const key of [
      'AbsolutePath',
      'TargetFile',
      'DirectoryPath',
      'SearchPath',
      'SearchDirectory',
      'Cwd',
      'File',
      'TargetDirectories',
      'OutputDir',
      'dir_path',
      'path',
    ]) {
      expect(isPathKey(key), key).toBe(true);
    }
    for (const key of ['CommandLine', 'Profile', 'Query', 'Url', 'Pattern'])
      expect(isPathKey(key), key).toBe(false);
  });

  it('collects string and string-array values only', () => {
    const c = call('codebase_search', { TargetDirectories: ['/a', 3, '/b'], IsFile: true, SearchPath: '' });
    expect(pathArgs(c)).toEqual([
      { key: 'TargetDirectories', value: '/a' },
      { key: 'TargetDirectories', value: '/b' },
    ]);
  });
});

describe('workspaceOnly', () => {
  it('allows paths inside the workspace (absolute, relative, via an inner symlink)', async () => {
    expect(await decision('view_file', { AbsolutePath: path.join(ws, 'src', 'a.ts') })).toBe('approve');
    expect(await decision('write_to_file', { TargetFile: 'src/new.ts' })).toBe('approve');
    expect(await decision('list_dir', { DirectoryPath: ws })).toBe('approve');
    expect(await decision('view_file', { AbsolutePath: path.join(ws, 'inner', 'a.ts') })).toBe('approve');
    expect(await decision('run_command', { CommandLine: 'ls', Cwd: ws })).toBe('approve');
  });

  it('denies a symlink escaping the workspace (directory, file and dangling)', async () => {
    expect(await decision('view_file', { AbsolutePath: path.join(ws, 'escape', 'secret.txt') })).toBe('deny');
    expect(await decision('view_file', { AbsolutePath: path.join(ws, 'secret-link') })).toBe('deny');
    expect(await decision('write_to_file', { TargetFile: path.join(ws, 'dangling') })).toBe('deny');
    expect(await decision('write_to_file', { TargetFile: 'escape/new/file.txt' })).toBe('deny');
  });

  it('denies .. after a symlink (which path.resolve would wrongly keep inside)', async () => {
    // Lexically `ws/escape/../src/a.ts` is `ws/src/a.ts`; really it is `root/src/a.ts`.
    expect(await decision('view_file', { AbsolutePath: `${ws}/escape/../src/a.ts` })).toBe('deny');
  });

  it('denies .. escapes, absolute paths outside and ~', async () => {
    expect(await decision('view_file', { AbsolutePath: path.join(ws, '..', 'outside', 'secret.txt') })).toBe(
      'deny',
    );
    expect(await decision('grep_search', { SearchPath: '../outside' })).toBe('deny');
    expect(await decision('find_by_name', { SearchDirectory: '/etc' })).toBe('deny');
    expect(await decision('run_command', { CommandLine: 'ls', Cwd: '/' })).toBe('deny');
    expect(await decision('view_file', { AbsolutePath: '~/.ssh/id_rsa' })).toBe('deny');
  });

  it('checks unknown built-in tools through any path-like key, but not MCP tools', async () => {
    expect(await decision('some_new_tool', { OutputFile: '/etc/passwd' })).toBe('deny');
    expect(await decision('some_new_tool', { OutputFile: path.join(ws, 'x') })).toBe('approve');
    const mcp = createHookToolCall({
      id: '1',
      name: 'read',
      server: 'remote',
      args: { path: '/etc/passwd' },
    });
    expect((await evaluate(policy.workspaceOnly([ws]), mcp)).decision).toBe('approve');
  });

  it('a specific allow cannot reopen a known file tool; the check is a specific-bucket deny', async () => {
    const policies = [policy.allow('view_file'), policy.allowAll(), ...policy.workspaceOnly([ws])];
    const result = await evaluate(
      policies,
      call('view_file', { AbsolutePath: path.join(ws, 'escape', 'secret.txt') }),
    );
    expect(result).toMatchObject({ decision: 'deny', scope: 'specific' });
    expect(result.policy?.name).toBe(WORKSPACE_ONLY_POLICY_NAME);
  });

  it('accepts several workspaces', async () => {
    const policies = policy.workspaceOnly([ws, outside]);
    expect(
      (await evaluate(policies, call('view_file', { AbsolutePath: path.join(outside, 'secret.txt') })))
        .decision,
    ).toBe('approve');
  });

  it('enforced, the deny reason names workspace_only', async () => {
    const runner = new HookRunner({ logger: spyLogger() });
    runner.register(enforce([policy.allowAll(), ...policy.workspaceOnly([ws])]));
    const outcome = await runner.dispatchPreToolCall(
      runner.beginTurn(),
      call('view_file', { AbsolutePath: path.join(ws, 'escape', 'secret.txt') }),
    );
    expect(outcome.allow).toBe(false);
    expect(outcome.message).toMatch(/^Denied by policy 'workspace_only': path arguments must resolve inside/);
  });

  it('a symlink loop fails closed', async () => {
    const runner = new HookRunner({ logger: spyLogger() });
    runner.register(enforce(policy.workspaceOnly([ws]), { logger: spyLogger() }));
    const outcome = await runner.dispatchPreToolCall(
      runner.beginTurn(),
      call('view_file', { AbsolutePath: path.join(ws, 'loop-a') }),
    );
    expect(outcome.allow).toBe(false);
    expect(outcome.message).toContain('fail closed');
  });

  it('rejects an empty workspace list', () => {
    expect(() => policy.workspaceOnly([])).toThrow(/at least one/);
  });
});

describe("the SDK's confinement admits exactly the attachment files", () => {
  let session: string; // the session directory, outside the workspace
  let attached: string; // an attachment file in it
  let attachments: AttachmentFiles;

  beforeAll(async () => {
    session = path.join(root, 'session');
    await mkdir(path.join(session, 'attachments'), { recursive: true });
    attached = path.join(session, 'attachments', '1-pixel.png');
    await writeFile(attached, 'png');
    await writeFile(path.join(session, 'attachments', '2-other.png'), 'other');
    await writeFile(path.join(session, 'settings.json'), '{}');
    await symlink(path.join(outside, 'secret.txt'), path.join(session, 'attachments', '3-link.png'));
    await symlink(attached, path.join(ws, 'attachment-link'));
    attachments = new AttachmentFiles();
    await attachments.add(attached);
  });

  async function sdkDecision(name: string, args: Record<string, unknown>) {
    return (await evaluate(sdkWorkspaceConfinement([ws], attachments), call(name, args))).decision;
  }

  it('admits the attachment file to the read tools, by any path that resolves to it', async () => {
    for (const tool of ATTACHMENT_READ_TOOLS)
      expect(await sdkDecision(tool, { AbsolutePath: attached }), tool).toBe('approve');
    // Gemini CLI's name for view_file (over ACP) is the same tool.
    expect(await sdkDecision('read_file', { AbsolutePath: attached })).toBe('approve');
    expect(await sdkDecision('view_file', { AbsolutePath: `${session}/x/../attachments/1-pixel.png` })).toBe(
      'approve',
    );
    expect(await sdkDecision('view_file', { AbsolutePath: path.join(ws, 'attachment-link') })).toBe(
      'approve',
    );
    // The workspace stays readable, and `workspaceOnly` itself (a user's) knows no attachments.
    expect(await sdkDecision('view_file', { AbsolutePath: path.join(ws, 'src', 'a.ts') })).toBe('approve');
    expect(await decision('view_file', { AbsolutePath: attached })).toBe('deny');
  });

  it('denies its siblings, its directory, the session directory, `..` past it and a symlink beside it', async () => {
    const att = path.join(session, 'attachments');
    for (const p of [
      path.join(att, '2-other.png'),
      path.join(att, '3-link.png'),
      att,
      session,
      path.join(session, 'settings.json'),
      `${attached}/../2-other.png`,
      `${attached}/..`,
      `${attached}/../../settings.json`,
      path.join(outside, 'secret.txt'),
    ])
      expect(await sdkDecision('view_file', { AbsolutePath: p }), p).toBe('deny');
  });

  it('admits it to reads only: writes, listings and commands there stay denied', async () => {
    expect(await sdkDecision('write_to_file', { TargetFile: attached })).toBe('deny');
    expect(await sdkDecision('replace_file_content', { TargetFile: attached })).toBe('deny');
    expect(await sdkDecision('grep_search', { SearchPath: attached })).toBe('deny');
    expect(await sdkDecision('list_dir', { DirectoryPath: path.join(session, 'attachments') })).toBe('deny');
    expect(await sdkDecision('run_command', { CommandLine: 'cat x', Cwd: session })).toBe('deny');
    // A read naming the attachment and another file outside is denied as a whole.
    expect(
      await sdkDecision('view_file', { AbsolutePath: attached, OtherFile: path.join(outside, 'secret.txt') }),
    ).toBe('deny');
  });

  it('denies an attachment swapped for a symlink out of the session', async () => {
    const swapped = path.join(session, 'attachments', '4-swapped.png');
    await writeFile(swapped, 'png');
    const own = new AttachmentFiles();
    await own.add(swapped);
    const policies = sdkWorkspaceConfinement([ws], own);
    expect((await evaluate(policies, call('view_file', { AbsolutePath: swapped }))).decision).toBe('approve');
    await rm(swapped);
    await symlink(path.join(outside, 'secret.txt'), swapped);
    expect((await evaluate(policies, call('view_file', { AbsolutePath: swapped }))).decision).toBe('deny');
  });
});
