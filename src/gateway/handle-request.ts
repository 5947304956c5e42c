/**
 * One client request, routed: unknown paths are a 404, a missing or wrong token a 401, the model routes are
 * answered from the model map, and `countTokens` and `generateContent` read a bounded JSON body first. Every
 * failure the client caused becomes a Google-shaped error.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { presentedKey, tokenMatches } from './auth.js';
import { type GatewayContext, sendError } from './context.js';
import { countTokens } from './count-tokens.js';
import { GatewayError } from './errors.js';
import { parseCountTokensRequest, parseGenerateContentRequest } from './gemini-types.js';
import { generateContent } from './generate-content.js';
import { sendJson } from './json-response.js';
import { modelInfo, modelList } from './model-info.js';
import { bareModelId } from './model-map.js';
import { normalizeRequest } from './normalize-request.js';
import { readJsonBody } from './request-body.js';
import { matchRoute, type Route } from './routes.js';

/** Answers `req`. Rejects only on a bug of ours (the caller answers that with a 500). */
export async function handleRequest(
  ctx: GatewayContext,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://127.0.0.1');
  const route = matchRoute(req.method ?? 'GET', url);
  // The path only: `?key=` would put the token in the log.
  ctx.logger.debug(`gateway: ${req.method} ${url.pathname}`);
  if (!route) {
    req.resume();
    return sendError(ctx, res, new GatewayError(404, `Method ${req.method} ${url.pathname} not found`));
  }
  if (!tokenMatches(presentedKey(req, url), ctx.token)) {
    req.resume();
    return sendError(ctx, res, invalidKey());
  }
  if (route.kind === 'listModels') return sendJson(res, 200, modelList(ctx.map, ctx.upstream.kind));
  if (route.kind === 'getModel') {
    const id = bareModelId(route.model);
    return sendJson(res, 200, modelInfo(id, ctx.map.resolve(id), ctx.upstream.kind));
  }
  let body: unknown;
  try {
    body = await readJsonBody(req, ctx.maxBodyBytes);
  } catch (error) {
    return sendError(ctx, res, error as GatewayError);
  }
  try {
    if (route.kind === 'countTokens') return await answerCountTokens(ctx, route.model, body, res);
    await answerGenerate(ctx, route, body, res);
  } catch (error) {
    if (error instanceof GatewayError) return sendError(ctx, res, error);
    throw error;
  }
}

function invalidKey(): GatewayError {
  return new GatewayError(401, 'API key not valid. Please pass the gateway token.', [
    {
      '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
      reason: 'API_KEY_INVALID',
      domain: 'agy-sdk.gateway',
    },
  ]);
}

async function answerCountTokens(
  ctx: GatewayContext,
  model: string,
  body: unknown,
  res: ServerResponse,
): Promise<void> {
  const requested = bareModelId(model);
  const { total, source } = await countTokens(
    ctx.upstream,
    ctx.options.upstream,
    ctx.agents,
    parseCountTokensRequest(body),
    requested,
    ctx.map.resolve(requested),
    ctx.logger,
  );
  res.setHeader('x-gateway-token-count', source);
  sendJson(res, 200, { totalTokens: total, promptTokensDetails: [{ modality: 'TEXT', tokenCount: total }] });
}

async function answerGenerate(
  ctx: GatewayContext,
  route: Extract<Route, { kind: 'generate' }>,
  body: unknown,
  res: ServerResponse,
): Promise<void> {
  const requested = bareModelId(route.model);
  const normalized = normalizeRequest(
    parseGenerateContentRequest(body),
    requested,
    ctx.map.resolve(requested),
  );
  // Chat Completions has no web search tool: refuse rather than answer without it
  // (docs/reference/gemini-clients.md#built-in-google-tools); Gemini CLI then does without the search.
  if (normalized.webSearch && ctx.upstream.kind === 'openai-chat')
    throw new GatewayError(
      400,
      'tools[].googleSearch is not supported with an openai-chat upstream',
      undefined,
      'INVALID_ARGUMENT',
    );
  await generateContent(ctx, normalized, res, route.stream && route.alt === 'sse', route.stream);
}
