// The session runtime as agy sees it: the files on disk (layout, modes, shapes agy accepts), the listener
// behind them, and what is left after close or a failed create (docs/reference/plugins-and-config.md#session-directory;
// docs/reference/plugins-and-config.md#plugin-directory, docs/reference/mcp.md#mcp-config-file, docs/reference/hooks.md#hooks-file-shape).
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, readdir, readFile, readlink, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  SessionRuntime,
  type SessionRuntimeOptions,
} from '../../../../src/connection/agy/session/session-runtime.js';
import { hiddenSegment } from '../../../../src/connection/tool-server/hidden-path.js';
import { ConfigError } from '../../../../src/errors.js';
import {
  AgentFrontmatterSchema,
  HookBundleSchema,
  HooksFileSchema,
  McpConfigSchema,
  PluginJsonSchema,
  parseFrontmatter,
  RuleFrontmatterSchema,
} from '../../../../src/protocol/agy-files.js';
import type { AgyHookRegistration } from '../../../../src/protocol/hook-wire.js';
import { tool } from '../../../../src/tools/tool.js';
import {
  probePort,
  recordingLogger,
  type TreeEntry,
  tcpServers,
  walkTree,
} from '../../../helpers/runtime-files.js';
import { type Sandbox, sandbox } from '../../../helpers/sandbox.js';

let box: Sandbox;
/** An empty HOME, so no test ever reads the real one. */
let home: string;
const cleanups: Array<() => Promise<void> | void> = [];

beforeEach(async () => {
  box = await sandbox();
  home = join(box.root, 'home');
  await mkdir(home);
});
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
  await box.cleanup();
});

const PLUGIN = '.agents/plugins/agy-sdk';

const echo = tool(
  { name: 'echo', description: 'Echoes its text', input: z.object({ text: z.string() }) },
  ({ text }) => `echo: ${text}`,
);

async function create(options: Partial<SessionRuntimeOptions> = {}): Promise<SessionRuntime> {
  const runtime = await SessionRuntime.create({
    dataDir: box.dataDir,
    env: { PATH: process.env.PATH, HOME: home },
    logger: recordingLogger(),
    ...options,
  });
  cleanups.push(() => runtime.close());
  return runtime;
}

const readJson = async (path: string): Promise<unknown> => JSON.parse(await readFile(path, 'utf8'));

/** A skill directory with a SKILL.md. */
async function skill(dir: string, name: string): Promise<string> {
  await mkdir(dir, { recursive: true });
  await writeFile(
    join(dir, 'SKILL.md'),
    `---\nname: ${name}\ndescription: the ${name} skill\n---\nDo ${name}.\n`,
  );
  return dir;
}

const hookNoop = () => undefined;

describe('SessionRuntime.create with everything configured', () => {
  it('writes a private session dir of shapes agy accepts, served by a live listener, and removes both on close', async () => {
    const skillsRoot = join(box.root, 'skills');
    await skill(join(skillsRoot, 'alpha'), 'alpha');
    await skill(join(skillsRoot, 'beta'), 'beta');
    await mkdir(join(skillsRoot, 'not-a-skill'));
    const solo = await skill(join(box.root, 'solo'), 'solo');
    const jsonSchema = { type: 'object', properties: { a: { type: 'string' } }, required: ['a'] };
    const hooks: AgyHookRegistration[] = [
      { event: 'PreToolUse', matcher: 'run_command', handler: () => ({ decision: 'allow' }) },
      { event: 'PreToolUse', matcher: 'view_file|write_to_file', handler: () => ({ decision: 'allow' }) },
      { event: 'PreToolUse', matcher: 'run_command', handler: () => ({ decision: 'allow' }) },
      { event: 'PostToolUse', handler: hookNoop },
      { event: 'Stop', handler: hookNoop },
    ];

    const runtime = await create({
      systemInstructions: {
        identity: 'You are the test agent.',
        sections: [{ title: 'Style', content: 'Be brief.' }],
      },
      notes: 'The build is `npm run build`.',
      jsonSchema,
      tools: [echo],
      mcpServers: {
        local: {
          command: '/usr/bin/env',
          args: ['node', 'server.js'],
          env: { API_KEY: 'k' },
          cwd: box.workspace,
          disabledTools: ['danger'],
          enabledTools: ['safe'],
        },
        remote: {
          url: 'https://mcp.example.com/mcp',
          headers: { Authorization: 'Bearer secret' },
          disabledTools: ['drop_table'],
          disabled: true,
        },
      },
      hooks,
      hookRelay: 'node',
      subagents: [
        { name: 'reviewer', description: 'Reviews a diff', instructions: '  Review carefully.\n' },
        { name: 'helper_2', description: 'Fetches things', instructions: 'Fetch.', subagent: false },
      ],
      skillsPaths: [skillsRoot, solo],
    });
    const dir = runtime.dir.path;
    const listener = runtime.listener!;
    expect(listener).toBeDefined();

    // Where it is: under the data dir, with no hidden segment agy would ignore (--add-dir).
    expect(dir.startsWith(join(box.dataDir, 'sessions'))).toBe(true);
    expect(hiddenSegment(dir)).toBeUndefined();

    const tree = await walkTree(dir);
    const byRel = new Map(tree.map((e) => [e.rel, e]));
    const files = tree.filter((e) => e.kind === 'file').map((e) => e.rel);
    expect(files.sort()).toEqual(
      [
        'owner.json',
        'response-schema.json',
        `${PLUGIN}/plugin.json`,
        `${PLUGIN}/mcp_config.json`,
        `${PLUGIN}/rules/system-instructions.md`,
        `${PLUGIN}/rules/notes.md`,
        '.agents/hooks.json',
        '.agents/agents/reviewer/agent.md',
        '.agents/agents/helper_2/agent.md',
        'hooks/PreToolUse.sh',
        'hooks/PreToolUse.json',
        'hooks/PostToolUse.sh',
        'hooks/PostToolUse.json',
        'hooks/Stop.sh',
        'hooks/Stop.json',
      ].sort(),
    );
    expect(tree.filter((e) => e.kind === 'other')).toEqual([]);

    // Modes: dirs 0700, files 0600, hook scripts 0700; the only symlinks are the linked skills.
    const badModes = (entries: TreeEntry[]) =>
      entries
        .filter((e) => {
          if (e.kind === 'dir') return e.mode !== 0o700;
          if (e.kind === 'file') return e.mode !== (/^hooks\/[A-Za-z]+\.sh$/.test(e.rel) ? 0o700 : 0o600);
          return false;
        })
        .map((e) => `${e.rel || '.'} ${e.mode.toString(8)}`);
    expect(badModes(tree)).toEqual([]);
    expect(byRel.get('')!.mode).toBe(0o700);
    const links = tree.filter((e) => e.kind === 'symlink');
    expect(links.map((e) => e.rel).sort()).toEqual(
      [`${PLUGIN}/skills/alpha`, `${PLUGIN}/skills/beta`, `${PLUGIN}/skills/solo`].sort(),
    );
    expect(await readlink(join(dir, PLUGIN, 'skills/alpha'))).toBe(join(skillsRoot, 'alpha'));
    expect(await readlink(join(dir, PLUGIN, 'skills/solo'))).toBe(solo);
    expect(existsSync(join(dir, PLUGIN, 'skills/alpha/SKILL.md'))).toBe(true);

    // owner.json names this process, for the stale-session sweep.
    expect(await readJson(join(dir, 'owner.json'))).toMatchObject({ pid: process.pid });

    // plugin.json.
    expect(PluginJsonSchema.parse(await readJson(join(dir, PLUGIN, 'plugin.json')))).toEqual({
      name: 'agy-sdk',
    });

    // Rules: always_on frontmatter, body rendered.
    for (const [name, body] of [
      ['system-instructions', 'You are the test agent.\n\n## Style\n\nBe brief.'],
      ['notes', 'The build is `npm run build`.'],
    ] as const) {
      const text = await readFile(join(dir, PLUGIN, `rules/${name}.md`), 'utf8');
      const fm = RuleFrontmatterSchema.parse(parseFrontmatter(text));
      expect(fm.trigger).toBe('always_on');
      expect(text.endsWith(`---\n\n${body}\n`)).toBe(true);
    }

    // Subagents.
    const reviewer = await readFile(join(dir, '.agents/agents/reviewer/agent.md'), 'utf8');
    expect(AgentFrontmatterSchema.parse(parseFrontmatter(reviewer))).toEqual({
      name: 'reviewer',
      description: 'Reviews a diff',
      subagent: true,
    });
    expect(reviewer.endsWith('---\n\nReview carefully.\n')).toBe(true);
    const helper = await readFile(join(dir, '.agents/agents/helper_2/agent.md'), 'utf8');
    expect(AgentFrontmatterSchema.parse(parseFrontmatter(helper))).toMatchObject({ subagent: false });

    // --json-schema file.
    expect(runtime.jsonSchemaFile).toBe(join(dir, 'response-schema.json'));
    expect(await readJson(runtime.jsonSchemaFile!)).toEqual(jsonSchema);

    // mcp_config.json: our tool server on the listener, the user's servers translated to agy's keys.
    const mcp = McpConfigSchema.parse(await readJson(join(dir, PLUGIN, 'mcp_config.json')));
    expect(mcp.mcpServers).toEqual({
      tools: { serverUrl: listener.mcpUrl('tools') },
      local: {
        command: '/usr/bin/env',
        args: ['node', 'server.js'],
        env: { API_KEY: 'k' },
        cwd: box.workspace,
        disabledTools: ['danger'],
      },
      remote: {
        serverUrl: 'https://mcp.example.com/mcp',
        headers: { Authorization: 'Bearer secret' },
        disabledTools: ['drop_table'],
        disabled: true,
      },
    });
    expect(new URL(listener.mcpUrl('tools')).host).toBe(`127.0.0.1:${listener.port}`);
    expect([...runtime.agyServerNames]).toEqual([
      ['tools', 'agy-sdk_tools'],
      ['local', 'agy-sdk_local'],
      ['remote', 'agy-sdk_remote'],
    ]);
    // The URL agy gets really serves the tool.
    const client = new Client({ name: 'session-runtime-test', version: '0.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(listener.mcpUrl('tools'))));
    cleanups.push(() => client.close());
    const called = (await client.callTool({ name: 'echo', arguments: { text: 'hi' } })) as CallToolResult;
    expect(called.content).toEqual([{ type: 'text', text: 'echo: hi' }]);

    // hooks.json: only the registered events, absolute commands, one combined matcher per tool event.
    expect(runtime.hooksFile).toBe(join(dir, '.agents/hooks.json'));
    const hooksFile = HooksFileSchema.parse(await readJson(runtime.hooksFile!));
    expect(Object.keys(hooksFile)).toEqual(['agy-sdk']);
    const bundle = HookBundleSchema.parse(hooksFile['agy-sdk']);
    expect(Object.keys(bundle).sort()).toEqual(['PostToolUse', 'PreToolUse', 'Stop', 'enabled']);
    expect(bundle.enabled).toBe(true);
    expect(bundle.PreToolUse).toEqual([
      {
        matcher: '(?:run_command)|(?:view_file|write_to_file)',
        hooks: [{ type: 'command', command: join(dir, 'hooks/PreToolUse.sh'), timeout: 35 }],
      },
    ]);
    expect(bundle.PostToolUse).toEqual([
      { matcher: '*', hooks: [{ type: 'command', command: join(dir, 'hooks/PostToolUse.sh'), timeout: 35 }] },
    ]);
    expect(bundle.Stop).toEqual([{ type: 'command', command: join(dir, 'hooks/Stop.sh'), timeout: 35 }]);
    // The combined matcher selects exactly the tools some handler wants (agy anchors nothing for us).
    const combined = new RegExp(`^(?:${bundle.PreToolUse![0]!.matcher})$`);
    expect(['run_command', 'view_file', 'write_to_file', 'list_dir'].filter((t) => combined.test(t))).toEqual(
      ['run_command', 'view_file', 'write_to_file'],
    );
    // The relay config of each event carries its own hook URL.
    for (const event of ['PreToolUse', 'PostToolUse', 'Stop']) {
      expect(await readJson(join(dir, `hooks/${event}.json`))).toEqual({
        url: listener.hookUrl(event),
        event,
        timeoutMs: 31_000,
      });
    }

    // Close: the directory is gone and the port refuses connections.
    const port = listener.port;
    expect(await probePort(port)).toBe('connected');
    await runtime.close();
    expect(existsSync(dir)).toBe(false);
    expect(runtime.dir.exists).toBe(false);
    expect(await probePort(port)).toBe('ECONNREFUSED');
    expect(await box.sessionDirs()).toEqual([]);
    await runtime.close(); // idempotent
  });

  it('without tools or hooks there is no listener, no hooks and no MCP file', async () => {
    const servers = tcpServers();
    const runtime = await create({ notes: 'n' });
    expect(runtime.listener).toBeUndefined();
    expect(tcpServers()).toBe(servers);
    expect(runtime.hooksFile).toBeUndefined();
    const rels = (await walkTree(runtime.dir.path)).map((e) => e.rel);
    expect(rels.filter((r) => r.endsWith('mcp_config.json') || r.includes('hooks'))).toEqual([]);
    expect(rels).toContain(`${PLUGIN}/rules/notes.md`);
  });

  it('with only user MCP servers: no listener, but mcp_config.json has them', async () => {
    const runtime = await create({ mcpServers: { remote: { url: 'http://127.0.0.1:9/mcp' } } });
    expect(runtime.listener).toBeUndefined();
    expect(await readJson(join(runtime.dir.path, PLUGIN, 'mcp_config.json'))).toEqual({
      mcpServers: { remote: { serverUrl: 'http://127.0.0.1:9/mcp' } },
    });
  });

  it('hooks only: the listener serves hooks, and no MCP server entry points at it', async () => {
    const runtime = await create({
      hooks: [{ event: 'SessionStart', handler: hookNoop }],
      hookRelay: 'node',
    });
    expect(runtime.listener).toBeDefined();
    expect(existsSync(join(runtime.dir.path, PLUGIN, 'mcp_config.json'))).toBe(false);
    const bundle = (await readJson(runtime.hooksFile!)) as Record<string, Record<string, unknown>>;
    expect(Object.keys(bundle['agy-sdk']!).sort()).toEqual(['SessionStart', 'enabled']);
  });
});

describe('hook placement', () => {
  const hooks: AgyHookRegistration[] = [{ event: 'PreToolUse', matcher: 'run_command', handler: hookNoop }];
  const locations = (dir: string) => ({
    workspace: join(dir, '.agents/hooks.json'),
    plugin: join(dir, PLUGIN, 'hooks.json'),
    home: join(dir, 'home/.gemini/config/hooks.json'),
  });

  it.each([
    { placement: undefined, isolation: undefined, expected: 'workspace' },
    { placement: 'workspace', isolation: undefined, expected: 'workspace' },
    { placement: 'plugin', isolation: undefined, expected: 'plugin' },
    { placement: undefined, isolation: 'shadow-home', expected: 'home' },
    { placement: 'home', isolation: 'shadow-home', expected: 'home' },
    { placement: 'workspace', isolation: 'shadow-home', expected: 'workspace' },
    { placement: 'plugin', isolation: 'shadow-home', expected: 'plugin' },
  ] as const)(
    'placement $placement, isolation $isolation → $expected',
    async ({ placement, isolation, expected }) => {
      const runtime = await create({
        hooks,
        hookRelay: 'node',
        hookPlacement: placement,
        isolation,
      });
      const where = locations(runtime.dir.path);
      expect(runtime.hooksFile).toBe(where[expected]);
      for (const [name, path] of Object.entries(where))
        expect(existsSync(path), name).toBe(name === expected);
      const file = HooksFileSchema.parse(await readJson(where[expected]));
      expect(file['agy-sdk']!.PreToolUse).toEqual([
        {
          matcher: '(?:run_command)',
          hooks: [{ type: 'command', command: join(runtime.dir.path, 'hooks/PreToolUse.sh'), timeout: 35 }],
        },
      ]);
      const st = (await walkTree(runtime.dir.path)).find((e) => e.path === where[expected])!;
      expect(st.mode).toBe(0o600);
    },
  );
});

describe('config errors name the field and leave nothing behind', () => {
  const over = 'x'.repeat(24_001);
  const cases: Array<{ what: string; field: string; options: Partial<SessionRuntimeOptions> }> = [
    { what: 'notes over 24,000 bytes', field: 'notes', options: { notes: over } },
    {
      what: 'systemInstructions over 24,000 bytes (checked while writing)',
      field: 'systemInstructions',
      options: { systemInstructions: over, tools: [echo] },
    },
    {
      what: "hookPlacement 'home' without shadow-home",
      field: 'hookPlacement',
      options: { hookPlacement: 'home' },
    },
    {
      what: 'an unknown hookPlacement',
      field: 'hookPlacement',
      options: { hookPlacement: 'attic' as never },
    },
    {
      what: 'settingsOverrides without shadow-home',
      field: 'settingsOverrides',
      options: { settingsOverrides: { modelProvider: 'gemini' } },
    },
    {
      what: 'linkNativeAuth without shadow-home',
      field: 'linkNativeAuth',
      options: { linkNativeAuth: true },
    },
    { what: 'an unknown isolation', field: 'isolation', options: { isolation: 'jail' as never } },
    {
      what: 'an MCP entry with neither command nor url',
      field: 'mcpServers.empty',
      options: { mcpServers: { empty: {} as never } },
    },
    {
      what: 'an MCP entry with a blank command',
      field: 'mcpServers.blank.command',
      options: { mcpServers: { blank: { command: '  ' } } },
    },
    {
      what: 'an MCP entry with a bad url',
      field: 'mcpServers.remote.url',
      options: { mcpServers: { remote: { url: 'not a url' } } },
    },
    {
      what: 'an MCP entry with a non-http url',
      field: 'mcpServers.remote.url',
      options: { mcpServers: { remote: { url: 'file:///etc/passwd' } } },
    },
    {
      what: 'an MCP entry with a non-string env value',
      field: 'mcpServers.local.env',
      options: { mcpServers: { local: { command: 'srv', env: { PORT: 8080 as never } } } },
    },
    {
      what: 'an MCP entry with a non-string arg',
      field: 'mcpServers.local.args',
      options: { mcpServers: { local: { command: 'srv', args: ['--port', 8080 as never] } } },
    },
    {
      what: 'an MCP entry with a non-string header value',
      field: 'mcpServers.remote.headers',
      options: {
        mcpServers: { remote: { url: 'http://127.0.0.1:9/mcp', headers: { 'X-Key': 42 as never } } },
      },
    },
    {
      what: 'an MCP entry whose disabledTools is not a list',
      field: 'mcpServers.local.disabledTools',
      options: { mcpServers: { local: { command: 'srv', disabledTools: 'danger' as never } } },
    },
    {
      what: 'an MCP server name agy would drop',
      field: 'mcpServers.my server',
      options: { mcpServers: { 'my server': { command: 'srv' } } },
    },
    {
      what: "a user MCP server named like the agent's own tools (checked while writing)",
      field: 'mcpServers.tools',
      options: { tools: [echo], mcpServers: { tools: { command: 'srv' } } },
    },
    {
      what: 'an unknown hook event',
      field: 'agyHooks[1].event',
      options: {
        hooks: [
          { event: 'Stop', handler: hookNoop },
          { event: 'PreCompact' as never, handler: hookNoop },
        ],
      },
    },
    {
      what: 'a hook matcher that is not a regex',
      field: 'agyHooks[0].matcher',
      options: { hooks: [{ event: 'PreToolUse', matcher: 'run_(command', handler: hookNoop }] },
    },
    {
      what: 'a hook without a handler',
      field: 'agyHooks[0].handler',
      options: { hooks: [{ event: 'Stop', handler: 'allow' as never }] },
    },
    {
      what: 'a subagent name agy would drop',
      field: 'subagents[0]',
      options: { subagents: [{ name: 'code reviewer!', description: 'd', instructions: 'i' }] },
    },
    {
      what: 'a subagent without a description',
      field: 'subagents[0]',
      options: { subagents: [{ name: 'ok', description: '', instructions: 'i' }] },
    },
    {
      what: 'a missing skills path',
      field: 'skillsPaths[0]',
      options: { skillsPaths: ['/nonexistent/agy-sdk/skills'] },
    },
    { what: 'a relative skills path', field: 'skillsPaths[0]', options: { skillsPaths: ['skills'] } },
    {
      what: "hookRelay 'curl' when curl is not on PATH (checked while writing)",
      field: 'hookRelay',
      options: {
        hooks: [{ event: 'Stop', handler: hookNoop }],
        hookRelay: 'curl',
        env: { PATH: '/nonexistent-agy-sdk-bin', HOME: '/nonexistent-home' },
      },
    },
  ];

  it.each(cases)('$what → $field', async ({ what, field, options }) => {
    const dataDir = join(box.root, 'errors-data');
    const servers = tcpServers();
    const error = await SessionRuntime.create({
      dataDir,
      env: { PATH: process.env.PATH, HOME: home },
      logger: recordingLogger(),
      ...options,
    }).then(
      (runtime) => {
        cleanups.push(() => runtime.close());
        return undefined;
      },
      (err: unknown) => err,
    );
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).field).toBe(field);
    expect((error as ConfigError).message.startsWith(`${field}: `)).toBe(true);
    // Checks that need no I/O fail before anything is created. The others fail after the session dir (and
    // listener) exist, and both are removed: only the empty sessions parent is left.
    if (what.includes('checked while writing')) {
      expect((await walkTree(dataDir)).map((e) => e.rel)).toEqual(['', 'sessions']);
    } else {
      expect(existsSync(dataDir)).toBe(false);
    }
    expect(tcpServers()).toBe(servers);
  });

  it('the same checks run without I/O in validate() (what the Agent constructor calls)', () => {
    for (const { what, options } of cases) {
      if (!what.includes('checked while writing'))
        expect(() => SessionRuntime.validate(options), what).toThrow(ConfigError);
    }
    expect(() => SessionRuntime.validate({ hookPlacement: 'home', isolation: 'shadow-home' })).not.toThrow();
    expect(() =>
      SessionRuntime.validate({ settingsOverrides: { a: 1 }, isolation: 'shadow-home' }),
    ).not.toThrow();
  });

  it('refuses a dataDir with a hidden segment (agy ignores such --add-dir paths) or a relative one', async () => {
    for (const [dataDir, pattern] of [
      [join(box.root, '.hidden', 'data'), /hidden segment \(\.hidden\)/],
      ['relative/data', /absolute/],
    ] as const) {
      const error = await SessionRuntime.create({
        dataDir,
        env: { PATH: process.env.PATH, HOME: home },
        logger: recordingLogger(),
      }).catch((err: unknown) => err);
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as ConfigError).field).toBe('dataDir');
      expect((error as Error).message).toMatch(pattern);
    }
    expect(existsSync(join(box.root, '.hidden'))).toBe(false);
  });
});

describe('stale session sweep', () => {
  const children: ChildProcess[] = [];
  afterEach(async () => {
    for (const child of children.splice(0)) {
      if (child.exitCode === null && child.signalCode === null) {
        const gone = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGKILL');
        await gone;
      }
    }
  });

  /** A child process that stays alive until killed, and resolves once it is running. */
  async function liveChild(): Promise<ChildProcess> {
    const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1 << 30)'], { stdio: 'ignore' });
    children.push(child);
    await new Promise((resolve, reject) => {
      child.once('spawn', resolve);
      child.once('error', reject);
    });
    return child;
  }

  async function deadPid(): Promise<number> {
    const child = spawn(process.execPath, ['-e', ''], { stdio: 'ignore' });
    await new Promise((resolve) => child.once('exit', resolve));
    return child.pid!;
  }

  const here = {
    host: hostname(),
    boot: existsSync('/proc/sys/kernel/random/boot_id')
      ? readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim()
      : '',
  };

  async function plantSession(id: string, owner: unknown): Promise<string> {
    const dir = join(box.dataDir, 'sessions', id);
    await mkdir(join(dir, '.agents/plugins/agy-sdk'), { recursive: true, mode: 0o700 });
    await writeFile(join(dir, '.agents/plugins/agy-sdk/plugin.json'), '{"name":"agy-sdk"}');
    if (owner !== undefined) await writeFile(join(dir, 'owner.json'), JSON.stringify(owner));
    return dir;
  }

  it('removes a session whose owner is dead at the next create, keeps live and ownerless ones', async () => {
    const live = await liveChild();
    const deadDir = await plantSession('dead-owner', { pid: await deadPid(), ...here, createdAt: 'then' });
    const liveDir = await plantSession('live-owner', { pid: live.pid, ...here, createdAt: 'now' });
    const ownerless = await plantSession('no-owner', undefined);
    // A dead pid written by another host (a data dir shared over NFS) is not ours to judge.
    const foreign = await plantSession('other-host', {
      pid: await deadPid(),
      host: 'elsewhere',
      boot: here.boot,
    });

    const runtime = await create();
    expect(existsSync(deadDir)).toBe(false);
    expect(existsSync(liveDir)).toBe(true);
    expect(existsSync(ownerless)).toBe(true);
    expect(existsSync(foreign)).toBe(true);
    expect((await box.sessionDirs()).sort()).toEqual(
      ['live-owner', 'no-owner', 'other-host', runtime.dir.id].sort(),
    );

    // Once its owner dies, the next create sweeps it too; the running session (ours) is never touched.
    const exited = new Promise((resolve) => live.once('exit', resolve));
    live.kill('SIGKILL');
    await exited;
    const second = await create();
    expect(existsSync(liveDir)).toBe(false);
    expect(runtime.dir.exists).toBe(true);
    expect((await box.sessionDirs()).sort()).toEqual(
      ['no-owner', 'other-host', runtime.dir.id, second.dir.id].sort(),
    );
  });

  it('every create makes a fresh private directory named by its id', async () => {
    const a = await create();
    const b = await create();
    expect(a.dir.id).not.toBe(b.dir.id);
    expect(a.dir.path).toBe(join(box.dataDir, 'sessions', a.dir.id));
    const modes = (await walkTree(box.dataDir)).filter((e) => e.kind === 'dir').map((e) => e.mode);
    expect(new Set(modes)).toEqual(new Set([0o700]));
    expect(await readdir(join(box.dataDir, 'sessions'))).toHaveLength(2);
  });
});
