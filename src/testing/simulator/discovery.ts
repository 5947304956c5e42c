/**
 * Finding agy's configuration at startup (docs/reference/plugins-and-config.md#session-directory, docs/reference/plugins-and-config.md#user-config-paths), in this
 * order, which is also the order hooks run in:
 *
 * 1. `$HOME/.gemini/config/hooks.json`, `$HOME/.gemini/config/mcp_config.json`,
 *    `$HOME/.gemini/antigravity-cli/settings.json` (`toolPermission` only), then the plugins in
 *    `$HOME/.gemini/antigravity-cli/plugins/` (docs/reference/plugins-and-config.md#plugin-directory) and in `$HOME/.gemini/config/plugins/`
 *    (beside the user's other config: `config/hooks.json`, `config/mcp_config.json`, `config/skills`);
 * 2. for each `--add-dir` workspace W, in flag order: `W/.agents/hooks.json`, `W/.agents/mcp_config.json`,
 *    the custom agents `W/.agents/agents/<name>/agent.md`, then the plugins in `W/.agents/plugins/`.
 *
 * A plugin is a directory (in name order) holding a `plugin.json` whose `name` matches `^[a-zA-Z0-9-_]+$`
 * and is not `disabled`; it may hold `rules/*.md`, `mcp_config.json` (servers named `<plugin>_<key>`),
 * `hooks.json` and `agents/<name>/agent.md`. The first plugin or MCP server of a name wins; later ones are
 * dropped with a warning. Everything is read synchronously, once; nothing is ever written.
 */
import { type Dirent, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { cutUtf8, parseFrontmatter } from './frontmatter.js';
import { emptyHookTable, type HookTable, loadHooksFile } from './hook-config.js';
import { type McpServerSpec, parseMcpConfig } from './mcp-config.js';

/** agy cuts each rule file at this many bytes (docs/reference/plugins-and-config.md#rules). */
export const MAX_RULE_BYTES = 24_000;

/** Plugin names agy accepts (docs/reference/plugins-and-config.md#plugin-manifest). */
const PLUGIN_NAME = /^[a-zA-Z0-9-_]+$/;

/** `toolPermission` values of `settings.json` (docs/reference/plugins-and-config.md#settings). */
const TOOL_PERMISSIONS = ['request-review', 'proceed-in-sandbox', 'always-proceed', 'strict'];

/** A rule file of a plugin. */
export interface Rule {
  file: string;
  plugin: string;
  /** The frontmatter `trigger`; a rule without one is always on (docs/reference/plugins-and-config.md#rules). */
  trigger: string;
  /** The text after the frontmatter, trimmed, from the file cut at {@link MAX_RULE_BYTES}. */
  body: string;
}

/** A custom agent (`agents/<name>/agent.md`). */
export interface CustomAgent {
  /** The frontmatter `name`, else the directory name. */
  name: string;
  description?: string | undefined;
  subagent: boolean;
  file: string;
}

/** A loaded plugin. */
export interface PluginInfo {
  name: string;
  dir: string;
}

/** Everything agy would have loaded. */
export interface RuntimeConfig {
  /** The `--add-dir` workspaces (hidden ones already dropped), deduplicated. */
  workspaces: string[];
  home: string;
  plugins: PluginInfo[];
  hooks: HookTable;
  /** The hooks files that loaded, in order. */
  hookFiles: string[];
  /** Enabled MCP servers, in discovery order. */
  mcpServers: McpServerSpec[];
  rules: Rule[];
  agents: CustomAgent[];
  /** `settings.json`'s `toolPermission`, when it holds a known value. */
  toolPermission?: string | undefined;
}

/**
 * Reads every configuration file agy would.
 *
 * @param warn receives stderr warnings (skipped plugins, dropped files and entries).
 * @throws McpConfigError when an `mcp_config.json` cannot be parsed (agy exits 1).
 */
export function discoverConfig(
  workspaces: readonly string[],
  home: string,
  warn: (line: string) => void,
): RuntimeConfig {
  const config: RuntimeConfig = {
    workspaces: [...new Set(workspaces.map((dir) => resolve(dir)))],
    home,
    plugins: [],
    hooks: emptyHookTable(),
    hookFiles: [],
    mcpServers: [],
    rules: [],
    agents: [],
  };
  const loader = new Loader(config, warn);
  const gemini = join(home, '.gemini');
  loader.hooks(join(gemini, 'config', 'hooks.json'));
  loader.mcp(join(gemini, 'config', 'mcp_config.json'), undefined);
  config.toolPermission = readToolPermission(join(gemini, 'antigravity-cli', 'settings.json'), warn);
  loader.plugins(join(gemini, 'antigravity-cli', 'plugins'));
  loader.plugins(join(gemini, 'config', 'plugins'));
  for (const workspace of config.workspaces) {
    const agents = join(workspace, '.agents');
    loader.hooks(join(agents, 'hooks.json'));
    loader.mcp(join(agents, 'mcp_config.json'), undefined);
    loader.agents(join(agents, 'agents'));
    loader.plugins(join(agents, 'plugins'));
  }
  return config;
}

class Loader {
  readonly #seenFiles = new Set<string>();

  readonly #config: RuntimeConfig;
  readonly #warn: (line: string) => void;

  constructor(config: RuntimeConfig, warn: (line: string) => void) {
    this.#config = config;
    this.#warn = warn;
  }

  /** A file's text, once per path; `undefined` when it does not exist (or was read already). */
  #read(file: string): Buffer | undefined {
    if (this.#seenFiles.has(file)) return undefined;
    this.#seenFiles.add(file);
    try {
      return readFileSync(file);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT' && code !== 'ENOTDIR')
        this.#warn(`warning: cannot read ${file}: ${(err as Error).message}`);
      return undefined;
    }
  }

  hooks(file: string): void {
    const bytes = this.#read(file);
    if (bytes === undefined) return;
    if (loadHooksFile(bytes.toString('utf8'), file, this.#config.hooks, this.#warn))
      this.#config.hookFiles.push(file);
  }

  mcp(file: string, plugin: string | undefined): void {
    const bytes = this.#read(file);
    if (bytes === undefined) return;
    for (const spec of parseMcpConfig(bytes.toString('utf8'), file, plugin, this.#warn)) {
      if (this.#config.mcpServers.some((known) => known.name === spec.name)) {
        this.#warn(
          `warning: ignoring MCP server "${spec.name}" in ${file}: a server of that name is already configured`,
        );
        continue;
      }
      this.#config.mcpServers.push(spec);
    }
  }

  agents(dir: string): void {
    for (const entry of subdirectories(dir)) {
      const file = join(dir, entry, 'agent.md');
      const bytes = this.#read(file);
      if (bytes === undefined) continue;
      const { fields } = parseFrontmatter(bytes.toString('utf8'));
      this.#config.agents.push({
        name: fields.name || entry,
        description: fields.description,
        subagent: fields.subagent === 'true',
        file,
      });
    }
  }

  plugins(dir: string): void {
    for (const entry of subdirectories(dir)) this.#plugin(join(dir, entry));
  }

  #plugin(dir: string): void {
    const manifest = join(dir, 'plugin.json');
    const bytes = this.#read(manifest);
    if (bytes === undefined) {
      this.#warn(`warning: skipping plugin ${dir}: no readable plugin.json`);
      return;
    }
    let value: unknown;
    try {
      value = JSON.parse(bytes.toString('utf8'));
    } catch (err) {
      this.#warn(`warning: skipping plugin ${dir}: plugin.json is not valid JSON: ${(err as Error).message}`);
      return;
    }
    const info =
      typeof value === 'object' && value !== null && !Array.isArray(value)
        ? (value as Record<string, unknown>)
        : {};
    const name = info.name;
    if (typeof name !== 'string' || !PLUGIN_NAME.test(name)) {
      this.#warn(`warning: skipping plugin ${dir}: plugin.json "name" must match ^[a-zA-Z0-9-_]+$`);
      return;
    }
    if (info.disabled === true) return;
    if (this.#config.plugins.some((plugin) => plugin.name === name)) {
      this.#warn(`warning: skipping plugin ${dir}: a plugin named "${name}" is already loaded`);
      return;
    }
    this.#config.plugins.push({ name, dir });
    this.#rules(join(dir, 'rules'), name);
    this.mcp(join(dir, 'mcp_config.json'), name);
    this.hooks(join(dir, 'hooks.json'));
    this.agents(join(dir, 'agents'));
  }

  #rules(dir: string, plugin: string): void {
    for (const entry of entries(dir)) {
      if (!entry.name.endsWith('.md') || entry.name.startsWith('.')) continue;
      const file = join(dir, entry.name);
      if (!isFile(file)) continue;
      const bytes = this.#read(file);
      if (bytes === undefined) continue;
      const { fields, body } = parseFrontmatter(cutUtf8(bytes, MAX_RULE_BYTES));
      this.#config.rules.push({ file, plugin, trigger: fields.trigger || 'always_on', body: body.trim() });
    }
  }
}

/** Directory entries sorted by name; none when `dir` is missing. */
function entries(dir: string): Dirent[] {
  try {
    return readdirSync(dir, { withFileTypes: true }).sort((a, b) =>
      a.name < b.name ? -1 : a.name > b.name ? 1 : 0,
    );
  } catch {
    return [];
  }
}

/** Names of the non-hidden subdirectories of `dir` (symlinks followed), sorted. */
function subdirectories(dir: string): string[] {
  return entries(dir)
    .filter((entry) => !entry.name.startsWith('.'))
    .filter((entry) => entry.isDirectory() || (entry.isSymbolicLink() && isDirectory(join(dir, entry.name))))
    .map((entry) => entry.name);
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

function readToolPermission(file: string, warn: (line: string) => void): string | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
  try {
    const settings: unknown = JSON.parse(text);
    const value = (settings as { toolPermission?: unknown } | null)?.toolPermission;
    return typeof value === 'string' && TOOL_PERMISSIONS.includes(value) ? value : undefined;
  } catch (err) {
    warn(`warning: ignoring ${file}: ${(err as Error).message}`);
    return undefined;
  }
}
