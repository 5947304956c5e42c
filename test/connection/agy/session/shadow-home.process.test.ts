// Isolation by shadow HOME (docs/reference/plugins-and-config.md#shadow-home): a real Agent runs agy (the
// simulator, through the real spawn path) with HOME pointing into its session directory. The user's
// ~/.gemini is read, merged and linked, and never modified: checked by fingerprinting every file (content
// and mode) before and after a whole run.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, link, lstat, mkdir, readFile, readlink, rm, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Agent } from '../../../../src/agent/agent.js';
import { buildShadowHome } from '../../../../src/connection/agy/session/shadow-home.js';
import { ConfigError } from '../../../../src/errors.js';
import { HookBundleSchema, HooksFileSchema, McpConfigSchema } from '../../../../src/protocol/agy-files.js';
import type { AgyHookRegistration } from '../../../../src/protocol/hook-wire.js';
import { tool } from '../../../../src/tools/tool.js';
import { fingerprintTree, procStrings, recordingLogger, walkTree } from '../../../helpers/runtime-files.js';
import { type Sandbox, sandbox } from '../../../helpers/sandbox.js';
import { ensureSimulatorBuilt } from '../../../helpers/sim-process.js';

let box: Sandbox;
let userHome: string;
const agents: Agent[] = [];

beforeAll(async () => {
  await ensureSimulatorBuilt();
}, 120_000);
beforeEach(async () => {
  box = await sandbox();
  userHome = join(box.root, 'user-home');
  await buildUserHome(userHome);
});
afterEach(async () => {
  await Promise.all(agents.splice(0).map((a) => a.close()));
  await box.cleanup();
});

const userSettings = { theme: 'dark', modelProvider: 'anthropic', ui: { compact: true, lines: 3 } };
const userMcp = {
  mcpServers: { 'user-server': { command: '/bin/true', args: ['--stdio'], disabled: true } },
};
// An absolute command that prints nothing: harmless if the simulator runs the user's hooks.
const userHooks = { 'user-guard': { enabled: true, Stop: [{ type: 'command', command: '/bin/true' }] } };

/** A user HOME as a signed-in agy leaves it, plus something outside ~/.gemini. */
async function buildUserHome(home: string): Promise<void> {
  const put = async (rel: string, content: string, mode = 0o644) => {
    await mkdir(join(home, rel, '..'), { recursive: true });
    await writeFile(join(home, rel), content);
    await chmod(join(home, rel), mode);
  };
  await put('.gemini/antigravity-cli/settings.json', JSON.stringify(userSettings, null, 2));
  await put(
    '.gemini/antigravity-cli/oauth_token.json',
    '{"access_token":"ya29.fake","refresh_token":"1//fake"}',
    0o600,
  );
  await put('.gemini/config/mcp_config.json', JSON.stringify(userMcp));
  await put('.gemini/config/hooks.json', JSON.stringify(userHooks));
  await put('.gemini/config/skills/x/SKILL.md', '---\nname: x\ndescription: the x skill\n---\nDo x.\n');
  await put('.gemini/config/AGENTS.md', '# My preferences\n');
  await put('.gemini/GEMINI.md', '# Global memory\n');
  await put('.bashrc', 'export PS1=x\n');
}

const echo = tool(
  { name: 'echo', description: 'Echoes', input: z.object({ text: z.string() }) },
  ({ text }) => text,
);

const readJson = async (path: string): Promise<unknown> => JSON.parse(await readFile(path, 'utf8'));

describe.each([{ linkNativeAuth: false }, { linkNativeAuth: true }])(
  'shadow HOME (linkNativeAuth: $linkNativeAuth)',
  ({ linkNativeAuth }) => {
    it('agy runs with a merged private HOME; the user HOME is byte-for-byte and mode-for-mode unchanged', async () => {
      const before = await fingerprintTree(userHome);
      expect(Object.keys(before)).toContain('.gemini/antigravity-cli/oauth_token.json');

      const hooks: AgyHookRegistration[] = [
        { event: 'PreToolUse', matcher: 'run_command', handler: () => ({ decision: 'allow' }) },
        { event: 'Stop', handler: () => undefined },
      ];
      const agent = new Agent(
        await box.agentConfig(
          { turns: [{ actions: [{ text: 'Hello from the shadow.' }] }] },
          {
            env: { HOME: userHome },
            isolation: 'shadow-home',
            settingsOverrides: { modelProvider: 'gemini', ui: { lines: 5 } },
            linkNativeAuth,
            tools: [echo],
            agyHooks: hooks,
            hookRelay: 'node',
            systemInstructions: 'Be brief.',
            logger: recordingLogger(),
          },
        ),
      );
      agents.push(agent);
      await agent.start();
      const sessionDir = agent.sessionDir!;
      const shadow = join(sessionDir, 'home');
      const gemini = join(shadow, '.gemini');
      const userGemini = join(userHome, '.gemini');

      // agy itself runs with HOME = the shadow.
      const environ = await procStrings(agent.pid!, 'environ');
      expect(environ.filter((e) => e.startsWith('HOME='))).toEqual([`HOME=${shadow}`]);
      expect(agent.runtime!.env).toEqual({ HOME: shadow });

      // settings.json: the user's keys kept, the overrides merged over them.
      expect(await readJson(join(gemini, 'antigravity-cli/settings.json'))).toEqual({
        theme: 'dark',
        modelProvider: 'gemini',
        ui: { compact: true, lines: 5 },
      });

      // mcp_config.json: the user's servers plus ours (agy's plugin-style name), ours on the listener.
      const mcp = McpConfigSchema.parse(await readJson(join(gemini, 'config/mcp_config.json')));
      expect(mcp.mcpServers).toEqual({
        ...userMcp.mcpServers,
        'agy-sdk_tools': { serverUrl: agent.runtime!.listener!.mcpUrl('tools') },
      });
      // Not also in the session plugin: agy would then see the server twice.
      expect(existsSync(join(sessionDir, '.agents/plugins/agy-sdk/mcp_config.json'))).toBe(false);

      // hooks.json (the default placement under shadow-home is the shadow's canonical file): user bundle + ours.
      const hooksFile = HooksFileSchema.parse(await readJson(join(gemini, 'config/hooks.json')));
      expect(Object.keys(hooksFile)).toEqual(['user-guard', 'agy-sdk']);
      expect(hooksFile['user-guard']).toEqual(userHooks['user-guard']);
      const ours = HookBundleSchema.parse(hooksFile['agy-sdk']);
      // Ours carries our registrations (the Agent may add its own control-plane events).
      expect(Object.keys(ours)).toEqual(expect.arrayContaining(['enabled', 'PreToolUse', 'Stop']));
      // (The Agent may add control-plane handlers to the same events, so the matcher is not pinned here.)
      expect(ours.PreToolUse).toEqual([
        {
          matcher: expect.any(String),
          hooks: [{ type: 'command', command: join(sessionDir, 'hooks/PreToolUse.sh'), timeout: 35 }],
        },
      ]);
      expect(ours.Stop).toEqual([
        { type: 'command', command: join(sessionDir, 'hooks/Stop.sh'), timeout: 35 },
      ]);
      expect(agent.runtime!.hooksFile).toBe(join(gemini, 'config/hooks.json'));
      expect(existsSync(join(sessionDir, '.agents/hooks.json'))).toBe(false);

      // Skills and preference files are copies, not links: agy writing to them must not reach the user's.
      for (const rel of ['config/skills', 'config/AGENTS.md', 'GEMINI.md']) {
        expect((await lstat(join(gemini, rel))).isSymbolicLink(), rel).toBe(false);
      }
      expect(await readFile(join(gemini, 'GEMINI.md'), 'utf8')).toBe(
        await readFile(join(userGemini, 'GEMINI.md'), 'utf8'),
      );
      expect(existsSync(join(gemini, 'config/skills/x/SKILL.md'))).toBe(true);
      // agy saving a memory into the shadow GEMINI.md leaves the user's file as it was.
      await writeFile(join(gemini, 'GEMINI.md'), 'a memory agy saved');

      // Credentials: never copied; linked only with linkNativeAuth.
      const credential = join(gemini, 'antigravity-cli/oauth_token.json');
      if (linkNativeAuth) {
        expect((await lstat(credential)).isSymbolicLink()).toBe(true);
        expect(await readlink(credential)).toBe(join(userGemini, 'antigravity-cli/oauth_token.json'));
      } else {
        await expect(lstat(credential)).rejects.toMatchObject({ code: 'ENOENT' });
      }
      // Whatever the mode, no file in the shadow is a copy of the credential.
      const secret = await readFile(join(userGemini, 'antigravity-cli/oauth_token.json'), 'utf8');
      const shadowTree = await walkTree(shadow);
      for (const entry of shadowTree.filter((e) => e.kind === 'file')) {
        expect(await readFile(entry.path, 'utf8'), entry.rel).not.toContain('ya29.fake');
      }
      expect(secret).toContain('ya29.fake');

      // The shadow is as private as the rest of the session dir.
      const loose = shadowTree
        .filter((e) => (e.kind === 'dir' && e.mode !== 0o700) || (e.kind === 'file' && e.mode !== 0o600))
        .map((e) => `${e.rel} ${e.mode.toString(8)}`);
      expect(loose).toEqual([]);

      // One turn, then close.
      const response = await agent.chat('hi');
      const result = await response.result();
      expect(result.status, String(result.errorMessage)).toBe('success');
      expect(result.text).toBe('Hello from the shadow.');
      await agent.close();
      expect(existsSync(sessionDir)).toBe(false);

      // The user's HOME: every file and directory as it was, nothing added or removed.
      expect(await fingerprintTree(userHome)).toEqual(before);
    });
  },
);

describe('buildShadowHome with a broken or empty user configuration', () => {
  it('skips user files that are not JSON objects (with a warning), never touching them', async () => {
    await writeFile(join(userHome, '.gemini/antigravity-cli/settings.json'), '{ "theme": ');
    await writeFile(join(userHome, '.gemini/config/mcp_config.json'), '[1, 2]');
    const before = await fingerprintTree(userHome);
    const warnings: string[] = [];
    const shadow = join(box.root, 'shadow');
    await buildShadowHome({
      userHome,
      shadowHome: shadow,
      settingsOverrides: { modelProvider: 'gemini' },
      mcpServers: { 'agy-sdk_tools': { serverUrl: 'http://127.0.0.1:9/t/mcp/tools' } },
      warn: (m) => warnings.push(m),
    });
    expect(await readJson(join(shadow, '.gemini/antigravity-cli/settings.json'))).toEqual({
      modelProvider: 'gemini',
    });
    expect(await readJson(join(shadow, '.gemini/config/mcp_config.json'))).toEqual({
      mcpServers: { 'agy-sdk_tools': { serverUrl: 'http://127.0.0.1:9/t/mcp/tools' } },
    });
    // The user's bundle is still carried over even though no hooks of ours were given.
    expect(await readJson(join(shadow, '.gemini/config/hooks.json'))).toEqual(userHooks);
    expect(warnings).toHaveLength(2);
    expect(warnings[0]).toMatch(/settings\.json is not valid JSON/);
    expect(warnings[1]).toMatch(/mcp_config\.json is not a JSON object/);
    expect(await fingerprintTree(userHome)).toEqual(before);
  });

  it('with no user ~/.gemini at all: only our files, no hooks.json, no links', async () => {
    const emptyHome = join(box.root, 'empty-home');
    await mkdir(emptyHome);
    const shadow = join(box.root, 'shadow');
    await buildShadowHome({ userHome: emptyHome, shadowHome: shadow, linkNativeAuth: true, warn: () => {} });
    const tree = await walkTree(shadow);
    expect(tree.filter((e) => e.kind === 'symlink')).toEqual([]);
    expect(
      tree
        .filter((e) => e.kind === 'file')
        .map((e) => e.rel)
        .sort(),
    ).toEqual(['.gemini/antigravity-cli/settings.json', '.gemini/config/mcp_config.json']);
    expect(await readJson(join(shadow, '.gemini/antigravity-cli/settings.json'))).toEqual({});
    expect(await readJson(join(shadow, '.gemini/config/mcp_config.json'))).toEqual({ mcpServers: {} });
    expect(await walkTree(emptyHome)).toHaveLength(1);
  });
});

describe('buildShadowHome never copies credentials through links, and reads only regular files', () => {
  const SSH_KEY = '-----BEGIN OPENSSH PRIVATE KEY----- fake-key-material';
  const TOKEN = 'ya29.fake';

  it('skips symlinks leaving a skill and any file that is a credential (by inode); copies the rest', async () => {
    const gem = join(userHome, '.gemini');
    const skills = join(gem, 'config/skills');
    await mkdir(join(userHome, '.ssh'), { recursive: true, mode: 0o700 });
    await writeFile(join(userHome, '.ssh/id_ed25519'), SSH_KEY, { mode: 0o600 });
    await writeFile(join(userHome, 'notes.md'), 'outside the skill\n');
    // A skill kept in a dotfiles folder and linked in: its target is its own tree.
    await mkdir(join(userHome, 'dotfiles/skills/dot'), { recursive: true });
    await writeFile(join(userHome, 'dotfiles/skills/dot/SKILL.md'), '---\nname: dot\n---\nDot.\n');
    await symlink(join(userHome, 'dotfiles/skills/dot'), join(skills, 'dot'));
    // The attacks: a whole skill linked to ~/.ssh, files linked to agy's token and to a key, a hard link.
    await symlink(join(userHome, '.ssh'), join(skills, 'keys'));
    await symlink(join(gem, 'antigravity-cli/oauth_token.json'), join(skills, 'x/creds.json'));
    await symlink(join(userHome, '.ssh/id_ed25519'), join(skills, 'x/key'));
    await link(join(gem, 'antigravity-cli/oauth_token.json'), join(skills, 'x/hard.json'));
    await symlink(join(userHome, 'notes.md'), join(skills, 'x/outside.md'));
    await symlink('..', join(skills, 'x/up'));
    // In-tree links are fine, and a FIFO is skipped rather than blocking the copy.
    await symlink('SKILL.md', join(skills, 'x/alias.md'));
    execFileSync('mkfifo', [join(skills, 'x/pipe')]);
    const warnings: string[] = [];
    const shadow = join(box.root, 'shadow');
    await buildShadowHome({ userHome, shadowHome: shadow, warn: (m) => warnings.push(m) });

    const copied = await walkTree(join(shadow, '.gemini/config/skills'));
    expect(
      copied
        .filter((e) => e.kind === 'file')
        .map((e) => e.rel)
        .sort(),
    ).toEqual(['dot/SKILL.md', 'x/SKILL.md', 'x/alias.md']);
    expect(copied.filter((e) => e.kind === 'symlink' || e.kind === 'other')).toEqual([]);
    for (const e of await walkTree(shadow)) {
      if (e.kind !== 'file') continue;
      const text = await readFile(e.path, 'utf8');
      expect(text).not.toContain(SSH_KEY);
      expect(text).not.toContain(TOKEN);
    }
    const joined = warnings.join('\n');
    for (const skipped of [
      'keys',
      'x/creds.json',
      'x/key',
      'x/hard.json',
      'x/outside.md',
      'x/up',
      'x/pipe',
    ]) {
      expect(joined).toContain(join(skills, skipped));
    }
  });

  it.each([
    ['settings.json', '.gemini/antigravity-cli/settings.json'],
    ['mcp_config.json', '.gemini/config/mcp_config.json'],
  ])('refuses a FIFO as %s with a ConfigError naming it, instead of blocking forever', async (_, rel) => {
    const path = join(userHome, rel);
    await rm(path);
    execFileSync('mkfifo', [path]);
    const error = await buildShadowHome({
      userHome,
      shadowHome: join(box.root, 'shadow'),
      warn: () => {},
    }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).message).toContain(path);
    expect((error as ConfigError).message).toMatch(/not a regular file/);
  });

  it('ignores (with a warning) a settings.json that is a link to a credential', async () => {
    const settings = join(userHome, '.gemini/antigravity-cli/settings.json');
    await rm(settings);
    await symlink(join(userHome, '.gemini/antigravity-cli/oauth_token.json'), settings);
    const warnings: string[] = [];
    const shadow = join(box.root, 'shadow');
    await buildShadowHome({ userHome, shadowHome: shadow, warn: (m) => warnings.push(m) });
    expect(await readFile(join(shadow, '.gemini/antigravity-cli/settings.json'), 'utf8')).not.toContain(
      TOKEN,
    );
    expect(warnings.some((w) => w.includes(settings) && w.includes('credential'))).toBe(true);
  });

  it('refuses an oversized settings.json with a ConfigError naming it', async () => {
    const path = join(userHome, '.gemini/antigravity-cli/settings.json');
    await writeFile(path, `{"pad":"${'x'.repeat(2 * 1024 * 1024)}"}`);
    await expect(
      buildShadowHome({ userHome, shadowHome: join(box.root, 'shadow'), warn: () => {} }),
    ).rejects.toThrow(/settings\.json is \d+ bytes, over the/);
  });
});
