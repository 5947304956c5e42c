/**
 * Flags → `AgentConfig`, shared by `run` and `chat`. Gateway mode (`--provider`) starts the provider bridge
 * (an in-process gateway pinned to the provider's model) and hands agy its env and settings under a shadow
 * HOME, so the user's `~/.gemini` is never touched and the upstream key never reaches agy.
 */
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { Isolation } from '../connection/index.js';
import type { UpstreamKind } from '../gateway/index.js';
// The bridge is the gateway area's provider-mode entry; `agy-sdk/gateway` does not export it (yet).
import { startProviderBridge } from '../gateway/index.js';
import { type AgentConfig, ConfigError, type JsonSchema } from '../index.js';
import { simulatorPath } from '../testing/index.js';

/** The flags `run` and `chat` share. */
export interface AgentFlags {
  /** `--model`. */
  model?: string;
  /** `--workspace`, repeatable. */
  workspace?: string[];
  /** `--schema <file>`: a JSON Schema file. */
  schema?: string;
  /** `--provider <kind>`. */
  provider?: string;
  /** `--base-url`. */
  baseUrl?: string;
  /** `--api-key-env <VAR>`: the variable holding the upstream key (never the key itself: argv is public). */
  apiKeyEnv?: string;
  /** `--provider-model`. */
  providerModel?: string;
  /** `--isolation`. */
  isolation?: string;
  /** `--conversation <id>`. */
  conversation?: string;
  /** `--offline`: the simulator instead of agy. */
  offline?: boolean;
  /** `--record <dir>`: record the session into a sanitized cassette in this directory. */
  record?: string;
}

/** A config ready for `new Agent()` and what must be closed after the agent. */
export interface AgentSetup {
  config: AgentConfig;
  /** Closes the provider bridge, if one was started. Idempotent. */
  close(): Promise<void>;
}

const KINDS: readonly UpstreamKind[] = ['openai-chat', 'openai-responses', 'anthropic'];
const DEFAULT_KEY_ENV: Record<UpstreamKind, string> = {
  'openai-chat': 'OPENAI_API_KEY',
  'openai-responses': 'OPENAI_API_KEY',
  anthropic: 'ANTHROPIC_API_KEY',
};

/** Builds the agent config for `flags`; throws `ConfigError` naming the flag when one is wrong. */
export async function setupAgent(flags: AgentFlags, extra: AgentConfig = {}): Promise<AgentSetup> {
  const config: AgentConfig = { ...extra };
  if (flags.model !== undefined) config.model = flags.model;
  if (flags.workspace?.length) config.workspaces = flags.workspace.map((w) => resolve(w));
  if (flags.conversation !== undefined) config.conversationId = flags.conversation;
  if (flags.offline) config.agyPath = simulatorPath();
  if (flags.record !== undefined) config.record = { dir: resolve(flags.record) };
  if (flags.isolation !== undefined) {
    if (flags.isolation !== 'none' && flags.isolation !== 'shadow-home')
      throw new ConfigError('--isolation', `must be "none" or "shadow-home", got "${flags.isolation}"`);
    config.isolation = flags.isolation as Isolation;
  }
  if (flags.schema !== undefined) config.responseSchema = await readSchema(flags.schema);
  if (flags.provider === undefined) {
    for (const [flag, value] of [
      ['--base-url', flags.baseUrl],
      ['--api-key-env', flags.apiKeyEnv],
      ['--provider-model', flags.providerModel],
    ] as const) {
      if (value !== undefined) throw new ConfigError(flag, 'only applies with --provider');
    }
    return { config, close: async () => {} };
  }
  return startBridge(flags, config);
}

async function startBridge(flags: AgentFlags, config: AgentConfig): Promise<AgentSetup> {
  const kind = flags.provider as UpstreamKind;
  if (!KINDS.includes(kind))
    throw new ConfigError('--provider', `must be one of ${KINDS.join(', ')}, got "${flags.provider}"`);
  if (!flags.baseUrl)
    throw new ConfigError('--base-url', `is required with --provider (e.g. https://api.openai.com/v1)`);
  if (!flags.providerModel)
    throw new ConfigError('--provider-model', 'is required with --provider (the upstream model id)');
  if (config.isolation === 'none')
    throw new ConfigError(
      '--isolation',
      'gateway mode needs "shadow-home": agy reads the provider settings from it',
    );
  const keyEnv = flags.apiKeyEnv ?? DEFAULT_KEY_ENV[kind];
  const apiKey = process.env[keyEnv];
  if (!apiKey) throw new ConfigError('--api-key-env', `environment variable ${keyEnv} is not set or empty`);
  const bridge = await startProviderBridge({
    kind,
    baseUrl: flags.baseUrl,
    apiKey,
    model: flags.providerModel,
  });
  config.env = { ...config.env, ...bridge.env };
  config.settingsOverrides = { ...config.settingsOverrides, ...bridge.settingsOverrides };
  config.isolation = 'shadow-home';
  return { config, close: () => bridge.close() };
}

/** Reads a JSON Schema file for `responseSchema`. */
async function readSchema(file: string): Promise<JsonSchema> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new ConfigError('--schema', `cannot read ${file}: ${(error as Error).message}`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new ConfigError('--schema', `${file} is not valid JSON: ${(error as Error).message}`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw new ConfigError('--schema', `${file} must hold a JSON Schema object`);
  return parsed as JsonSchema;
}
