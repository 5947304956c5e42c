/**
 * `countTokens` (docs/reference/gateway-translation.md#counting-tokens): forwarded to the upstream's own count
 * endpoint where it has one (Anthropic `POST /v1/messages/count_tokens`, OpenAI Responses
 * `POST /v1/responses/input_tokens`). Otherwise, or when that fails, an OpenAI model family (gpt-4o, gpt-4.1,
 * gpt-5, o1/o3/o4) is counted with its real tokenizer (`tokenizer.ts`); any other model gets a local estimate
 * (≈ 4 characters per token). The answer says which (`x-gateway-token-count: upstream | tokenizer | estimate`).
 */
import type { Logger } from '../logger.js';
import { describeError } from '../logger.js';
import type { GenerateContentRequest } from './gemini-types.js';
import { type NormalizedRequest, normalizeRequest } from './normalize-request.js';
import { countO200kTokens, isO200kModel, TokenizerMissingError } from './tokenizer.js';

/** Whether the missing optional tokenizer was reported (once per process). */
let tokenizerMissingTold = false;

import { joinUrl, postJson, readBody, type UpstreamAgents } from './upstream/http-client.js';
import type { Upstream, UpstreamConfig } from './upstream/upstream.js';

/** A count and where it came from. */
export interface TokenCount {
  /** Prompt tokens. */
  total: number;
  /**
   * `upstream`: the provider counted; `tokenizer`: the model family's own encoding, locally; `estimate`:
   * ≈ 4 characters per token, locally.
   */
  source: 'upstream' | 'tokenizer' | 'estimate';
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
  let normalized: NormalizedRequest;
  try {
    normalized = normalizeRequest(request, requestedModel, upstreamModel);
  } catch (error) {
    logger.debug(`gateway: count request not translatable (${describeError(error)}); estimating`);
    return estimate();
  }
  /** No count from the upstream: the model's tokenizer where one fits, else the estimate. */
  const local = async (): Promise<TokenCount> => {
    if (!isO200kModel(upstreamModel)) return estimate();
    try {
      return { total: await countO200kTokens(normalized), source: 'tokenizer' };
    } catch (error) {
      if (error instanceof TokenizerMissingError) {
        if (!tokenizerMissingTold) logger.info(`gateway: ${error.message}; estimating`);
        tokenizerMissingTold = true;
      } else logger.warn(`gateway: the o200k tokenizer failed (${describeError(error)}); estimating`);
      return estimate();
    }
  };
  if (!upstream.buildCountRequest || !upstream.readCount) return local();
  try {
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
      logger.debug(`gateway: upstream count answered ${status}; counting locally`);
      return local();
    }
    const total = upstream.readCount(JSON.parse(text) as unknown);
    if (total === undefined) {
      logger.debug('gateway: upstream count had no input_tokens; counting locally');
      return local();
    }
    return { total, source: 'upstream' };
  } catch (error) {
    logger.debug(`gateway: upstream count failed (${describeError(error)}); counting locally`);
    return local();
  }
}
