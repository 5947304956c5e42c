/**
 * `agy-sdk gateway`: the Gemini-compatible gateway on its own, for agy or Gemini CLI started by hand. Prints
 * the exact `export` lines and the settings snippet, then serves until SIGINT/SIGTERM and closes gracefully
 * (in-flight requests finish or are cut by the gateway's own close bound; nothing is left listening).
 */

import { createGateway, type UpstreamKind } from '../gateway/index.js';
import { ConfigError } from '../index.js';
import { durationProblem } from '../internal/duration.js';
import { reportFailure } from './failure.js';

/** `gateway`'s flags. */
export interface GatewayFlags {
  /** `--upstream <kind>`. */
  upstream: string;
  /** `--base-url`. */
  baseUrl: string;
  /** `--model-map pattern=model,…`. */
  modelMap?: string;
  /** `--port`. */
  port?: string;
  /** `--api-key-env <VAR>`. */
  apiKeyEnv?: string;
  /** `--headers-hold-ms <ms>`: the gateway's `headersHoldMs`. */
  headersHoldMs?: string;
}

const KINDS: readonly UpstreamKind[] = ['openai-chat', 'openai-responses', 'anthropic'];
const DEFAULT_KEY_ENV: Record<UpstreamKind, string> = {
  'openai-chat': 'OPENAI_API_KEY',
  'openai-responses': 'OPENAI_API_KEY',
  anthropic: 'ANTHROPIC_API_KEY',
};

/** Parses `gemini-*=gpt-4o,gemini-2.5-pro=o3` into a model map; throws `ConfigError` on a bad entry. */
export function parseModelMap(text: string): Record<string, string> {
  const map: Record<string, string> = {};
  for (const entry of text.split(',')) {
    const trimmed = entry.trim();
    if (trimmed === '') continue;
    const eq = trimmed.indexOf('=');
    const pattern = trimmed.slice(0, eq).trim();
    const model = trimmed.slice(eq + 1).trim();
    if (eq <= 0 || pattern === '' || model === '')
      throw new ConfigError('--model-map', `"${trimmed}" is not pattern=model`);
    map[pattern] = model;
  }
  if (Object.keys(map).length === 0) throw new ConfigError('--model-map', 'is empty');
  return map;
}

function parsePort(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const port = Number(text);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new ConfigError('--port', `must be an integer from 0 to 65535, got "${text}"`);
  return port;
}

/** `--headers-hold-ms`: a whole number of ms, 0 (commit at once) allowed, within what a timer honours. */
function parseHoldMs(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const rule = { allowZero: true, integer: true };
  // Digits only: `Number` would read "" as 0 and "1e3" or "0x10" as numbers.
  const ms = /^\d+$/.test(text.trim()) ? Number(text) : Number.NaN;
  const problem = durationProblem(ms, rule);
  if (problem !== undefined) throw new ConfigError('--headers-hold-ms', `${problem}, got "${text}"`);
  return ms;
}

/** Serves until a signal; resolves to the exit code (0 after a graceful shutdown). */
export async function gatewayCommand(
  flags: GatewayFlags,
  out: NodeJS.WritableStream = process.stdout,
  err: NodeJS.WritableStream = process.stderr,
): Promise<number> {
  let gateway: Awaited<ReturnType<typeof createGateway>>;
  try {
    const kind = flags.upstream as UpstreamKind;
    if (!KINDS.includes(kind))
      throw new ConfigError('--upstream', `must be one of ${KINDS.join(', ')}, got "${flags.upstream}"`);
    const keyEnv = flags.apiKeyEnv ?? DEFAULT_KEY_ENV[kind];
    const apiKey = process.env[keyEnv];
    if (!apiKey) throw new ConfigError('--api-key-env', `environment variable ${keyEnv} is not set or empty`);
    const modelMap = flags.modelMap === undefined ? undefined : parseModelMap(flags.modelMap);
    const port = parsePort(flags.port);
    const headersHoldMs = parseHoldMs(flags.headersHoldMs);
    gateway = await createGateway({
      upstream: { kind, baseUrl: flags.baseUrl, apiKey },
      ...(modelMap && { modelMap }),
      ...(port !== undefined && { port }),
      ...(headersHoldMs !== undefined && { headersHoldMs }),
    });
    out.write(
      `# agy-sdk gateway: ${gateway.url} → ${kind} ${flags.baseUrl}\n` +
        '# In the shell that starts agy (or Gemini CLI):\n' +
        `export GOOGLE_GEMINI_BASE_URL=${gateway.url}\n` +
        `export GEMINI_API_KEY=${gateway.token}\n` +
        '# and in ~/.gemini/antigravity-cli/settings.json (agy only):\n' +
        '{"modelProvider":"gemini"}\n' +
        (modelMap ? '' : '# note: no --model-map; Gemini model ids are passed upstream unchanged\n') +
        '# Ctrl-C stops the gateway.\n',
    );
  } catch (error) {
    return reportFailure(error, err);
  }
  const signal = await new Promise<NodeJS.Signals>((resolve) => {
    const onSignal = (received: NodeJS.Signals): void => {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      resolve(received);
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  });
  err.write(`agy-sdk gateway: ${signal}, closing\n`);
  await gateway.close();
  return 0;
}
