/** The checks `createGateway` runs on its options before anything listens: each bad field is a `ConfigError`. */
import { ConfigError } from '../errors.js';
import { checkDuration } from '../internal/duration.js';
import { checkedLogger } from '../logger.js';
import type { GatewayOptions } from './options.js';
import type { UpstreamConfig } from './upstream/upstream.js';

const KINDS = ['openai-chat', 'openai-responses', 'anthropic'] as const;

/** Throws `ConfigError` naming the first field of `options` that is missing or out of range. */
export function validateGatewayOptions(options: GatewayOptions): void {
  validateUpstream(options?.upstream);
  if (
    options.port !== undefined &&
    (!Number.isInteger(options.port) || options.port < 0 || options.port > 65535)
  )
    throw new ConfigError('port', 'must be an integer from 0 to 65535');
  for (const key of [
    'keepAliveMs',
    'headersGuardMs',
    'headersHoldMs',
    'upstreamConnectTimeoutMs',
    'upstreamHeadersTimeoutMs',
    'upstreamIdleTimeoutMs',
  ] as const)
    checkDuration(key, options[key], { allowZero: true });
  for (const key of ['headersTimeoutMs', 'requestTimeoutMs', 'idleTimeoutMs'] as const)
    checkDuration(key, options[key], { integer: true });
  const { maxBodyBytes } = options;
  if (maxBodyBytes !== undefined && (!Number.isFinite(maxBodyBytes) || maxBodyBytes < 0))
    throw new ConfigError('maxBodyBytes', 'must be a non-negative number');
  for (const key of ['maxConnections', 'maxUpstreamEventChars'] as const) {
    const v = options[key];
    if (v !== undefined && (!Number.isSafeInteger(v) || v <= 0))
      throw new ConfigError(key, 'must be a positive integer');
  }
  if ((options.headersTimeoutMs ?? 0) > (options.requestTimeoutMs ?? Number.POSITIVE_INFINITY))
    throw new ConfigError('headersTimeoutMs', 'must not be larger than requestTimeoutMs');
  checkedLogger(options.logger);
}

/** `options.upstream`: a known kind, an absolute http(s) URL without credentials, string key and headers. */
function validateUpstream(u: UpstreamConfig | undefined): asserts u is UpstreamConfig {
  if (!u || typeof u !== 'object') throw new ConfigError('upstream', 'is required');
  if (!KINDS.includes(u.kind)) throw new ConfigError('upstream.kind', `must be one of ${KINDS.join(', ')}`);
  let parsed: URL;
  try {
    parsed = new URL(u.baseUrl);
  } catch {
    throw new ConfigError('upstream.baseUrl', 'must be an absolute http(s) URL');
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
    throw new ConfigError('upstream.baseUrl', 'must be an absolute http(s) URL');
  if (parsed.username || parsed.password)
    throw new ConfigError('upstream.baseUrl', 'must not carry credentials; use apiKey or headers');
  if (typeof u.apiKey !== 'string') throw new ConfigError('upstream.apiKey', 'must be a string');
  if (u.encryptedReasoning !== undefined) {
    if (typeof u.encryptedReasoning !== 'boolean')
      throw new ConfigError('upstream.encryptedReasoning', 'must be a boolean');
    if (u.kind !== 'openai-responses')
      throw new ConfigError('upstream.encryptedReasoning', 'applies to an openai-responses upstream only');
  }
  if (u.headers !== undefined) {
    for (const [k, v] of Object.entries(u.headers))
      if (typeof v !== 'string') throw new ConfigError(`upstream.headers.${k}`, 'must be a string');
  }
}
