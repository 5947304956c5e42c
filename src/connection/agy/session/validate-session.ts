/**
 * The session options' checks that need no I/O, apart from the session runtime: the Agent constructor runs them
 * on every config, and loading them must not load the runtime (its listener, the MCP server stack).
 */
import { existsSync, statSync } from 'node:fs';
import { isAbsolute } from 'node:path';
import { ConfigError } from '../../../errors.js';
import { zod } from '../../../internal/load-sync.js';
import { agentFrontmatterSchema } from '../../../protocol/agent-frontmatter.js';
import { AGY_HOOK_EVENTS, type AgyHookRegistration } from '../../../protocol/hook-wire.js';
import type { McpServerConfig } from '../../mcp-server-config.js';
import { validateDataDir } from '../../tool-server/hidden-path.js';
import { toAgyMcpEntry } from './mcp-config.js';
import { alwaysOnRule } from './rules.js';

/** The session options these checks read (`SessionRuntimeOptions` has them all). */
export interface SessionCheckOptions {
  dataDir?: string | undefined;
  isolation?: string | undefined;
  hookPlacement?: string | undefined;
  settingsOverrides?: Record<string, unknown> | undefined;
  linkNativeAuth?: boolean | undefined;
  notes?: string | undefined;
  mcpServers?: Record<string, McpServerConfig> | undefined;
  hooks?: readonly AgyHookRegistration[] | undefined;
  subagents?:
    | readonly { name: string; description: string; instructions: string; subagent?: boolean }[]
    | undefined;
  skillsPaths?: readonly string[] | undefined;
}

/** The subagent frontmatter's schema, built on the first config with subagents (zod loads then). */
let frontmatter: ReturnType<typeof agentFrontmatterSchema> | undefined;

/** Validates the session options that need no I/O; throws `ConfigError` naming the field. */
export function validateSession(o: SessionCheckOptions): void {
  const isolation = o.isolation ?? 'none';
  if (o.dataDir !== undefined) validateDataDir(o.dataDir);
  if (isolation !== 'none' && isolation !== 'shadow-home') {
    throw new ConfigError('isolation', `must be 'none' or 'shadow-home', got ${JSON.stringify(isolation)}`);
  }
  if (o.hookPlacement === 'home' && isolation !== 'shadow-home') {
    throw new ConfigError(
      'hookPlacement',
      "'home' needs isolation: 'shadow-home' (the user's real HOME is never written)",
    );
  }
  if (o.hookPlacement !== undefined && !['workspace', 'plugin', 'home'].includes(o.hookPlacement)) {
    throw new ConfigError('hookPlacement', "must be 'workspace', 'plugin' or 'home'");
  }
  if (o.settingsOverrides !== undefined && isolation !== 'shadow-home') {
    throw new ConfigError(
      'settingsOverrides',
      "needs isolation: 'shadow-home' (the user's settings.json is never modified)",
    );
  }
  if (o.linkNativeAuth && isolation !== 'shadow-home') {
    throw new ConfigError('linkNativeAuth', "only applies with isolation: 'shadow-home'");
  }
  if (o.notes !== undefined) alwaysOnRule('notes', 'agy-sdk notes', o.notes);
  for (const [name, server] of Object.entries(o.mcpServers ?? {})) toAgyMcpEntry(name, server);
  for (const [i, h] of (o.hooks ?? []).entries()) {
    if (!AGY_HOOK_EVENTS.includes(h.event))
      throw new ConfigError(`agyHooks[${i}].event`, `unknown agy hook event ${JSON.stringify(h.event)}`);
    if (typeof h.handler !== 'function')
      throw new ConfigError(`agyHooks[${i}].handler`, 'must be a function');
    if (h.matcher !== undefined) {
      try {
        new RegExp(h.matcher);
      } catch (err) {
        throw new ConfigError(`agyHooks[${i}].matcher`, `is not a valid regex: ${(err as Error).message}`);
      }
    }
  }
  for (const [i, s] of (o.subagents ?? []).entries()) {
    frontmatter ??= agentFrontmatterSchema(zod());
    const parsed = frontmatter.safeParse({
      name: s.name,
      description: s.description,
      subagent: s.subagent ?? true,
    });
    if (!parsed.success)
      throw new ConfigError(
        `subagents[${i}]`,
        parsed.error.issues.map((x) => `${x.path.join('.')}: ${x.message}`).join('; '),
      );
    if (typeof s.instructions !== 'string')
      throw new ConfigError(`subagents[${i}].instructions`, 'must be a string');
  }
  for (const [i, p] of (o.skillsPaths ?? []).entries()) {
    if (!isAbsolute(p) || !existsSync(p) || !statSync(p).isDirectory()) {
      throw new ConfigError(
        `skillsPaths[${i}]`,
        `must be an existing absolute directory, got ${JSON.stringify(p)}`,
      );
    }
  }
}
