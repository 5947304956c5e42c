/**
 * Isolation by shadow HOME (docs/reference/plugins-and-config.md#shadow-home): agy runs with HOME set to a
 * private directory inside the session directory, so everything it reads from or writes to `~/.gemini` is
 * ours to shape, and the user's own files are never modified.
 *
 * - `~/.gemini/antigravity-cli/settings.json`: the user's, copied, with our overrides merged over it.
 * - `~/.gemini/config/mcp_config.json`: the user's servers plus ours.
 * - `~/.gemini/config/hooks.json`: the user's bundles plus ours (agy's canonical hook location).
 * - Skills and the user's preference files are copied (agy may write to them; the user's stay untouched),
 *   without following symlinks out of a skill and never a credential file (`shadow-home-copy.ts`).
 * - The user's JSON files are read only if they are regular files of reasonable size: a FIFO named
 *   `settings.json` would otherwise block `start()` forever.
 * - Credentials are never copied. `linkNativeAuth` links the native auth and session state instead (and, on
 *   macOS, the keychain paths `Library/Keychains` and `Library/Preferences/com.apple.security.plist`), so a
 *   signed-in agy stays signed in; agy may then update that state itself.
 */
import { constants, existsSync } from 'node:fs';
import { mkdir, open, readdir, symlink, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { ConfigError } from '../../../errors.js';
import { isRecord } from '../../../internal/guards.js';
import { exceedsJsonDepth } from '../../../internal/json-depth.js';
import {
  type HooksFile,
  type McpConfigEntry,
  McpConfigSchema,
  validated,
} from '../../../protocol/agy-files.js';
import { CredentialSet, copyUserItem } from './shadow-home-copy.js';

/** Largest user JSON file read (settings, MCP config, hooks); real ones are a few KiB. */
export const MAX_USER_JSON_BYTES = 1024 * 1024;

/** What to build the shadow HOME from. */
export interface ShadowHomeOptions {
  /** The user's real home directory (read only). */
  userHome: string;
  /** Where to build the shadow HOME (inside the session directory). */
  shadowHome: string;
  /** Merged over the user's `settings.json` (deep merge for plain objects). */
  settingsOverrides?: Record<string, unknown> | undefined;
  /** Our MCP servers, added to the user's (ours win on a name clash). */
  mcpServers?: Record<string, McpConfigEntry> | undefined;
  /** Our hooks bundles, added to the user's. */
  hooks?: HooksFile | undefined;
  /** Link native auth and session state. */
  linkNativeAuth?: boolean | undefined;
  /** Reports problems with the user's files (they are skipped, never modified). */
  warn: (message: string) => void;
}

/** Deep-merges plain objects; arrays and scalars from `over` replace. */
export function deepMerge(
  base: Record<string, unknown>,
  over: Record<string, unknown>,
): Record<string, unknown> {
  const out: Record<string, unknown> = { ...base };
  for (const [k, v] of Object.entries(over)) {
    const b = out[k];
    out[k] = isRecord(b) && isRecord(v) ? deepMerge(b, v) : v;
  }
  return out;
}

/**
 * Reads one of the user's JSON files. Absent: `{}`. Not JSON or not an object: `{}` with a warning. Not a
 * regular file (a FIFO, a device, a directory) or too large: a `ConfigError` naming it, since reading it
 * could block forever or exhaust memory, and silently ignoring the user's settings would change behaviour.
 */
async function readJsonObject(
  path: string,
  warn: (m: string) => void,
  credentials: CredentialSet,
): Promise<Record<string, unknown>> {
  let text: string;
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    // O_NONBLOCK: opening a FIFO with no writer would otherwise wait forever, before any type check.
    handle = await open(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw new ConfigError('isolation', `cannot read ${path} for the shadow HOME: ${(err as Error).message}`);
  }
  try {
    const st = await handle.stat();
    if (!st.isFile())
      throw new ConfigError(
        'isolation',
        `${path} is not a regular file; the shadow HOME cannot be built from it`,
      );
    if (st.size > MAX_USER_JSON_BYTES)
      throw new ConfigError(
        'isolation',
        `${path} is ${st.size} bytes, over the ${MAX_USER_JSON_BYTES}-byte limit for the shadow HOME`,
      );
    if (credentials.hasFile(st)) {
      // A settings file linked to a token would otherwise carry it into the shadow settings.json.
      warn(`${path} is a credential file (a link to one); ignored in the shadow HOME`);
      return {};
    }
    text = await handle.readFile('utf8');
  } finally {
    await handle.close();
  }
  try {
    const value: unknown = JSON.parse(text);
    if (isRecord(value) && !exceedsJsonDepth(value)) return value;
    warn(`${path} is not a JSON object; ignored in the shadow HOME`);
  } catch (err) {
    warn(`${path} is not valid JSON (${(err as Error).message}); ignored in the shadow HOME`);
  }
  return {};
}

async function writePrivateJson(path: string, value: unknown): Promise<void> {
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  await writeFile(path, `${JSON.stringify(value, null, 2)}\n`, { mode: 0o600 });
}

async function linkIfExists(target: string, link: string): Promise<void> {
  if (!existsSync(target) || existsSync(link)) return;
  await mkdir(dirname(link), { recursive: true, mode: 0o700 });
  await symlink(target, link);
}

/** Builds the shadow HOME; returns its path. */
export async function buildShadowHome(o: ShadowHomeOptions): Promise<string> {
  const userGemini = join(o.userHome, '.gemini');
  const gemini = join(o.shadowHome, '.gemini');
  await mkdir(join(gemini, 'antigravity-cli'), { recursive: true, mode: 0o700 });
  await mkdir(join(gemini, 'config'), { recursive: true, mode: 0o700 });

  // agy's whole sign-in state (everything in antigravity-cli but settings and skills) counts as credentials.
  const authState = (await readdir(join(userGemini, 'antigravity-cli')).catch(() => [] as string[]))
    .filter((entry) => entry !== 'settings.json' && entry !== 'skills')
    .map((entry) => join(userGemini, 'antigravity-cli', entry));
  const credentials = await CredentialSet.collect(o.userHome, authState);

  const settings = await readJsonObject(
    join(userGemini, 'antigravity-cli', 'settings.json'),
    o.warn,
    credentials,
  );
  await writePrivateJson(
    join(gemini, 'antigravity-cli', 'settings.json'),
    deepMerge(settings, o.settingsOverrides ?? {}),
  );

  const userMcp = await readJsonObject(join(userGemini, 'config', 'mcp_config.json'), o.warn, credentials);
  const userServers = isRecord(userMcp.mcpServers) ? userMcp.mcpServers : {};
  const ours = validated(McpConfigSchema, { mcpServers: o.mcpServers ?? {} }, 'mcp_config.json').mcpServers;
  await writePrivateJson(join(gemini, 'config', 'mcp_config.json'), {
    ...userMcp,
    mcpServers: { ...userServers, ...ours },
  });

  const userHooks = await readJsonObject(join(userGemini, 'config', 'hooks.json'), o.warn, credentials);
  const hooks = { ...userHooks, ...(o.hooks ?? {}) };
  if (Object.keys(hooks).length > 0) await writePrivateJson(join(gemini, 'config', 'hooks.json'), hooks);

  // Inputs agy loads: skills and the user's preference files. Copied, not linked: agy may write to them
  // (e.g. saving a memory to GEMINI.md), and that must land in the shadow HOME, not in the user's ~/.gemini.
  for (const rel of ['config/skills', 'antigravity-cli/skills']) {
    await copyUserItem(join(userGemini, rel), join(gemini, rel), credentials, o.warn, true);
  }
  for (const rel of ['config/AGENTS.md', 'GEMINI.md']) {
    await copyUserItem(join(userGemini, rel), join(gemini, rel), credentials, o.warn);
  }
  await copyUserItem(
    join(o.userHome, '.agents', 'skills'),
    join(o.shadowHome, '.agents', 'skills'),
    credentials,
    o.warn,
    true,
  );

  if (o.linkNativeAuth) {
    const skip = new Set(['settings.json', 'skills']);
    for (const entry of await readdir(join(userGemini, 'antigravity-cli')).catch(() => [] as string[])) {
      if (!skip.has(entry))
        await linkIfExists(
          join(userGemini, 'antigravity-cli', entry),
          join(gemini, 'antigravity-cli', entry),
        );
    }
    const skipTop = new Set(['antigravity-cli', 'config', 'GEMINI.md']);
    for (const entry of await readdir(userGemini).catch(() => [] as string[])) {
      if (!skipTop.has(entry)) await linkIfExists(join(userGemini, entry), join(gemini, entry));
    }
    // macOS: `security` needs the login keychain to find agy's credentials (docs/reference/plugins-and-config.md#shadow-home).
    for (const rel of ['Library/Keychains', 'Library/Preferences/com.apple.security.plist']) {
      await linkIfExists(join(o.userHome, rel), join(o.shadowHome, rel));
    }
  }
  return o.shadowHome;
}
