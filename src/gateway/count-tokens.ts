/**
 * `countTokens` (docs/reference/gateway-translation.md#counting-tokens): forwarded to the upstream's own count
 * endpoint where it has one (Anthropic `POST /v1/messages/count_tokens`, OpenAI Responses
 * `POST /v1/responses/input_tokens`), else, or when that fails, a local estimate (≈ 4 characters per token) that
 * says it is one (`x-gateway-token-count: estimate`).
 */
import type { Logger } from '../logger.js';
import { describeError } from '../logger.js';
import type { GenerateContentRequest } from './gemini-types.js';
import { normalizeRequest } from './normalize-request.js';
import { joinUrl, postJson, readBody, type UpstreamAgents } from './upstream/http-client.js';
import type { Upstream, UpstreamConfig } from './upstream/upstream.js';

/** A count and where it came from. */
export interface TokenCount {
  /** Prompt tokens. */
  total: number;
  /** `upstream`: the provider counted; `estimate`: ≈ 4 characters per token, locally. */
  source: 'upstream' | 'estimate';
}

/** How long a count may take upstream before the estimate answers instead. */
const COUNT_TIMEOUT_MS = 15_000;

/** A rough local token count (≈ 4 characters per token), the last resort. */
export function estimateTokens(value: unknown): number {
  const text = JSON.stringify(value) ?? '';
  return Math.max(1, Math.ceil(text.length / 4));
}

/** Counts the prompt of `request` for `upstreamModel`, upstream when possible. Never throws. */
export async function countTokens(
  upstream: Upstream,
  config: UpstreamConfig,
  agents: UpstreamAgents,
  request: GenerateContentRequest,
  requestedModel: string,
  upstreamModel: string,
  logger: Logger,
): Promise<TokenCount> {
  const estimate = (): TokenCount => ({
    total: estimateTokens([request.systemInstruction, request.contents, request.tools]),
    source: 'estimate',
  });
  if (!upstream.buildCountRequest || !upstream.readCount) return estimate();
  try {
    const normalized = normalizeRequest(request, requestedModel, upstreamModel);
    const count = upstream.buildCountRequest(normalized);
    const res = await postJson(
      joinUrl(config.baseUrl, count.path),
      { ...config.headers, ...count.headers, accept: 'application/json' },
      count.body,
      agents,
      AbortSignal.timeout(COUNT_TIMEOUT_MS),
    );
    const text = await readBody(res);
    const status = res.statusCode ?? 0;
    if (status < 200 || status >= 300) {
      logger.debug(`gateway: upstream count answered ${status}; estimating`);
      return estimate();
    }
    const total = upstream.readCount(JSON.parse(text) as unknown);
    if (total === undefined) {
      logger.debug('gateway: upstream count had no input_tokens; estimating');
      return estimate();
    }
    return { total, source: 'upstream' };
  } catch (error) {
    logger.debug(`gateway: upstream count failed (${describeError(error)}); estimating`);
    return estimate();
  }
}
