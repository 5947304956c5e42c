/** The checks of `AgentPool`'s options and of one run's options: a bad field throws `ConfigError` naming it. */

import { checkChatOptions } from '../agent/agent.js';
import { ConfigError } from '../errors.js';
import { checkDuration } from '../internal/duration.js';
import type { AgentPoolOptions, PoolRunOptions } from './types.js';

/** Checks one run's options as `agent.chat` would, plus the pool's own; throws `ConfigError` naming the field. */
export function checkRunOptions(options: PoolRunOptions): void {
  const { signal, turnTimeoutMs, responseSchema, onAdmitted } = options;
  checkChatOptions({ signal, turnTimeoutMs, responseSchema });
  if (onAdmitted !== undefined && typeof onAdmitted !== 'function')
    throw new ConfigError('options.onAdmitted', 'must be a function');
}

/** Checks the pool's options; throws `ConfigError` naming the field. */
export function checkPoolOptions(options: AgentPoolOptions): void {
  if (typeof options !== 'object' || options === null) throw new ConfigError('options', 'must be an object');
  const { size, maxQueue, warm, agent, telemetry } = options;
  if (!Number.isSafeInteger(size) || size < 1) throw new ConfigError('size', 'must be a positive integer');
  if (maxQueue !== undefined && !(Number.isSafeInteger(maxQueue) && maxQueue >= 0))
    throw new ConfigError('maxQueue', 'must be a non-negative integer');
  if (warm !== undefined && !(Number.isSafeInteger(warm) && warm >= 0 && warm <= size))
    throw new ConfigError('warm', `must be an integer from 0 to size (${size})`);
  if (typeof agent !== 'function' && (typeof agent !== 'object' || agent === null))
    throw new ConfigError('agent', 'must be an AgentConfig or a function (key) => AgentConfig');
  if (telemetry !== undefined) {
    if (typeof telemetry !== 'object' || telemetry === null)
      throw new ConfigError('telemetry', 'must be { enabled?, meterProvider? }');
    if (telemetry.enabled !== undefined && typeof telemetry.enabled !== 'boolean')
      throw new ConfigError('telemetry.enabled', 'must be a boolean');
    const provider = telemetry.meterProvider as { getMeter?: unknown } | undefined;
    if (provider !== undefined && typeof provider?.getMeter !== 'function')
      throw new ConfigError('telemetry.meterProvider', 'must be a meter provider (with getMeter)');
  }
  const { backoff } = options;
  if (backoff !== undefined) {
    if (typeof backoff !== 'object' || backoff === null)
      throw new ConfigError('backoff', 'must be { baseMs?, maxMs? }');
    checkDuration('backoff.baseMs', backoff.baseMs);
    checkDuration('backoff.maxMs', backoff.maxMs);
  }
  for (const name of ['onStats', 'onEvent'] as const)
    if (options[name] !== undefined && typeof options[name] !== 'function')
      throw new ConfigError(name, 'must be a function');
  if (warm && typeof agent === 'function')
    throw new ConfigError(
      'warm',
      'warm agents need a plain agent config (a function config depends on the key)',
    );
}
