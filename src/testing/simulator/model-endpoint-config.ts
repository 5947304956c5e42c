/**
 * Whether the simulator takes its model turns from a Gemini-compatible endpoint, and where: real agy does when
 * `~/.gemini/antigravity-cli/settings.json` says `modelProvider: "gemini"` and `GOOGLE_GEMINI_BASE_URL` is set,
 * authenticating with `GEMINI_API_KEY` (issue 10; docs/reference/gemini-api.md#agy-as-a-gemini-client:
 * Go genai defaults, `v1beta` and `x-goog-api-key`).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** Where model turns come from in endpoint mode. */
export interface ModelEndpointConfig {
  /** `GOOGLE_GEMINI_BASE_URL` without a trailing slash. */
  baseUrl: string;
  /** `GEMINI_API_KEY` (may be empty: the endpoint then answers with its own auth error). */
  apiKey: string;
  /** `GOOGLE_GENAI_API_VERSION`, default `v1beta` (the Go SDK's default). */
  apiVersion: string;
  /** The model id in the request path: `--model`, else the simulator's default model name. */
  model: string;
}

/** `modelProvider` from agy's settings file, if it is a string. A missing or unreadable file means none. */
export function readModelProvider(home: string): string | undefined {
  try {
    const settings: unknown = JSON.parse(
      readFileSync(join(home, '.gemini', 'antigravity-cli', 'settings.json'), 'utf8'),
    );
    const value = (settings as { modelProvider?: unknown } | null)?.modelProvider;
    return typeof value === 'string' ? value : undefined;
  } catch {
    // discovery.ts already warns about an unparsable settings file; here it just means "not configured".
    return undefined;
  }
}

/**
 * The endpoint configuration, or undefined when endpoint mode is off.
 *
 * @throws Error when `GOOGLE_GEMINI_BASE_URL` is set for the gemini provider but is not an http(s) URL.
 */
export function modelEndpointConfig(
  home: string,
  env: NodeJS.ProcessEnv,
  model: string,
): ModelEndpointConfig | undefined {
  const baseUrl = env.GOOGLE_GEMINI_BASE_URL;
  if (baseUrl === undefined || baseUrl === '' || readModelProvider(home) !== 'gemini') return undefined;
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw new Error(`GOOGLE_GEMINI_BASE_URL is not a URL: ${JSON.stringify(baseUrl)}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new Error(`GOOGLE_GEMINI_BASE_URL must be http(s): ${JSON.stringify(baseUrl)}`);
  }
  return {
    baseUrl: baseUrl.replace(/\/+$/, ''),
    apiKey: env.GEMINI_API_KEY ?? '',
    apiVersion: env.GOOGLE_GENAI_API_VERSION || 'v1beta',
    model,
  };
}
