// The one upstream → Gemini error table (docs/reference/gateway-translation.md#errors-upstream-to-gemini), row
// by row against each provider's documented error shapes, read in order: an explicit status in the body
// (`status_code`, a numeric `code`), the response status, then `type`, then `code` strings. 4xx stays 4xx so
// clients do not retry what cannot succeed; only overload, 5xx and 429 are retryable. Each row names its source.
// End-to-end through the gateway with the recorded Groq and OpenRouter streams: provider-recordings.test.ts.
import { describe, expect, it } from 'vitest';
import {
  classifyUpstreamError,
  fromUpstreamResponse,
  fromUpstreamStreamError,
  upstreamErrorInfo,
} from '../../src/gateway/errors.js';

interface Row {
  source: string;
  body: unknown;
  /** The HTTP status the upstream answered with; absent for an error inside a 200 stream. */
  http?: number;
  code: number;
  credit?: boolean;
}

const ROWS: Row[] = [
  // Groq, recorded (test/fixtures/upstream-providers/groq/test_tool_use_failed_error_streaming_with_text.yaml).
  {
    source: 'Groq event: error (recording)',
    body: {
      error: {
        message: 'Tool choice is required, but model did not call a tool',
        type: 'invalid_request_error',
        code: 'tool_use_failed',
        failed_generation: '',
        status_code: 400,
      },
    },
    code: 400,
  },
  // OpenRouter, recorded (test/fixtures/upstream-providers/openrouter/test_openrouter_stream_error.yaml).
  {
    source: 'OpenRouter chunk error (recording)',
    body: { error: { code: 400, message: 'Token limit reached' } },
    code: 400,
  },
  // OpenAI Responses, recorded (test/fixtures/upstream-providers/openai/openai-error.1.chunks.txt).
  {
    source: 'OpenAI Responses error event (recording)',
    body: {
      type: 'error',
      sequence_number: 2,
      error: {
        type: 'insufficient_quota',
        code: 'insufficient_quota',
        message: 'You exceeded your current quota',
        param: null,
      },
    },
    code: 429,
    credit: true,
  },
  // https://openrouter.ai/docs/api-reference/errors: `{"error":{"code":<http status>,"message":…}}`.
  {
    source: 'OpenRouter 402',
    body: { error: { code: 402, message: 'Insufficient credits' } },
    code: 429,
    credit: true,
  },
  { source: 'OpenRouter 429', body: { error: { code: 429, message: 'Rate limited' } }, code: 429 },
  { source: 'OpenRouter 502', body: { error: { code: 502, message: 'Provider returned error' } }, code: 503 },
  { source: 'OpenRouter 408', body: { error: { code: 408, message: 'Timed out' } }, code: 504 },
  // https://docs.anthropic.com/en/api/errors: `{"type":"error","error":{"type":…,"message":…}}`.
  {
    source: 'Anthropic overloaded_error',
    body: { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } },
    code: 503,
  },
  {
    source: 'Anthropic invalid_request_error',
    body: { type: 'error', error: { type: 'invalid_request_error', message: 'x' } },
    code: 400,
  },
  {
    source: 'Anthropic authentication_error',
    body: { type: 'error', error: { type: 'authentication_error', message: 'x' } },
    code: 401,
  },
  {
    source: 'Anthropic permission_error',
    body: { type: 'error', error: { type: 'permission_error', message: 'x' } },
    code: 403,
  },
  {
    source: 'Anthropic not_found_error',
    body: { type: 'error', error: { type: 'not_found_error', message: 'x' } },
    code: 404,
  },
  {
    source: 'Anthropic request_too_large',
    body: { type: 'error', error: { type: 'request_too_large', message: 'x' } },
    code: 400,
  },
  {
    source: 'Anthropic rate_limit_error',
    body: { type: 'error', error: { type: 'rate_limit_error', message: 'x' } },
    code: 429,
  },
  {
    source: 'Anthropic api_error',
    body: { type: 'error', error: { type: 'api_error', message: 'x' } },
    code: 500,
  },
  {
    source: 'Anthropic billing_error',
    body: { type: 'error', error: { type: 'billing_error', message: 'x' } },
    code: 429,
    credit: true,
  },
  {
    source: 'Anthropic timeout_error',
    body: { type: 'error', error: { type: 'timeout_error', message: 'x' } },
    code: 504,
  },
  // https://platform.openai.com/docs/guides/error-codes: `{"error":{"message","type","param","code"}}`.
  {
    source: 'OpenAI context_length_exceeded',
    body: {
      error: {
        message: "This model's maximum context length is 128000 tokens",
        type: 'invalid_request_error',
        param: 'messages',
        code: 'context_length_exceeded',
      },
    },
    code: 400,
  },
  {
    source: 'OpenAI rate_limit_exceeded (type "requests")',
    body: {
      error: { message: 'Rate limit reached', type: 'requests', param: null, code: 'rate_limit_exceeded' },
    },
    code: 429,
  },
  // https://console.groq.com/docs/errors: rate limits come as type "tokens", code rate_limit_exceeded.
  {
    source: 'Groq rate_limit_exceeded (type "tokens")',
    body: { error: { message: 'Rate limit reached for model', type: 'tokens', code: 'rate_limit_exceeded' } },
    code: 429,
  },
  {
    source: 'OpenAI server_error',
    body: { error: { message: 'The server had an error', type: 'server_error' } },
    code: 500,
  },
  // Responses `response.failed` error objects carry only `code` (https://platform.openai.com/docs/api-reference/responses-streaming).
  {
    source: 'Responses response.failed rate_limit_exceeded',
    body: { error: { code: 'rate_limit_exceeded', message: 'x' } },
    code: 429,
  },
  {
    source: 'Responses response.failed server_is_overloaded',
    body: { error: { code: 'server_is_overloaded', message: 'x' } },
    code: 503,
  },
  {
    source: 'Responses response.failed invalid_prompt',
    body: { error: { code: 'invalid_prompt', message: 'x' } },
    code: 400,
  },
  { source: 'nothing known', body: { error: { code: 'something_new', message: 'x' } }, code: 500 },
  // HTTP failures: the response status wins over the body's type.
  {
    source: 'OpenAI HTTP 429 insufficient_quota',
    http: 429,
    body: {
      error: {
        message: 'You exceeded your current quota',
        type: 'insufficient_quota',
        code: 'insufficient_quota',
      },
    },
    code: 429,
    credit: true,
  },
  {
    source: 'Anthropic HTTP 529',
    http: 529,
    body: { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } },
    code: 503,
  },
  {
    source: 'HTTP 422 (vLLM validation)',
    http: 422,
    body: { object: 'error', message: 'bad', type: 'BadRequestError', code: 422 },
    code: 400,
  },
];

const QUOTA = 'type.googleapis.com/google.rpc.QuotaFailure';

describe('the upstream error table', () => {
  for (const row of ROWS) {
    it(`${row.source} → ${row.code}${row.credit ? ' + daily QuotaFailure' : ''}`, () => {
      const error =
        row.http === undefined
          ? fromUpstreamStreamError(row.body)
          : fromUpstreamResponse(row.http, JSON.stringify(row.body), {});
      expect(error.code).toBe(row.code);
      expect(error.details?.some((d) => d['@type'] === QUOTA) ?? false).toBe(row.credit ?? false);
    });
  }

  it('an explicit status beats type and code: status_code 400 with an overloaded-sounding code stays 400', () => {
    expect(
      classifyUpstreamError(upstreamErrorInfo({ error: { status_code: 400, code: 'overloaded_error' } }))
        .code,
    ).toBe(400);
    expect(classifyUpstreamError(upstreamErrorInfo({ error: { code: '429', message: 'x' } })).code).toBe(429);
  });

  it('type is read before code: invalid_request_error with a code nobody knows is a 400, not a 500', () => {
    expect(
      fromUpstreamStreamError({ error: { type: 'invalid_request_error', code: 'brand_new_code' } }).code,
    ).toBe(400);
  });

  it('every 4xx row stays 4xx; only 429, overload and 5xx are retryable statuses', () => {
    for (const row of ROWS) {
      const error =
        row.http === undefined
          ? fromUpstreamStreamError(row.body)
          : fromUpstreamResponse(row.http, JSON.stringify(row.body), {});
      const explicit = upstreamErrorInfo(row.body).status ?? row.http;
      if (explicit !== undefined && explicit >= 400 && explicit < 500 && explicit !== 402 && explicit !== 408)
        expect(error.code, row.source).toBe(
          explicit === 429 ? 429 : [401, 403, 404].includes(explicit) ? explicit : 400,
        );
    }
  });

  it('the message names what the provider said and leaves out the key', () => {
    const error = fromUpstreamStreamError(
      { error: { type: 'authentication_error', message: 'bad key sk-ant-api03-SECRETSECRET' } },
      ['sk-ant-api03-SECRETSECRET'],
    );
    expect(error.message).toContain('authentication_error');
    expect(error.message).not.toContain('SECRETSECRET');
  });

  it('a body that is not an object reads as nothing known (500), never throws', () => {
    expect(fromUpstreamStreamError('oops').code).toBe(500);
    expect(fromUpstreamStreamError(null).code).toBe(500);
    expect(fromUpstreamResponse(503, '<html>busy</html>', {}).code).toBe(503);
  });
});
