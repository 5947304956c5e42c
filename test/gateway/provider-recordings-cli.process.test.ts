// The real Gemini CLI 0.61.0 through the gateway against a recorded Groq stream that streams text and then
// fails in-stream with `event: error` `{type:"invalid_request_error", code:"tool_use_failed", status_code:400}`
// (test/fixtures/upstream-providers/groq/test_tool_use_failed_error_streaming_with_text.yaml, recorded by
// pydantic-ai; see that folder's README). The error is the stream's last frame
// (docs/reference/gateway-translation.md#errors-upstream-to-gemini): the CLI, whose bundled SDK cannot read it,
// retries the stream and ends the turn as an error, never as a success on the half answer. The Mistral recording checks the other user-visible failure: a list
// `content` used to come back as an empty STOP, which the CLI retried and then reported as an error. An error
// before any content (the same Groq error with the text before it left out, and OpenAI's recorded
// insufficient_quota, openai/openai-error.1.chunks.txt) used to follow a committed 200, which the CLI retries
// whatever the error says; with the status held for the first chunk it is the HTTP status itself.
import { existsSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { createGateway, type Gateway } from '../../src/gateway/index.js';
import { silentLogger } from '../../src/logger.js';
import {
  GEMINI_CLI_ENTRY,
  type GeminiCliRun,
  retryLines,
  runGeminiCli,
} from '../helpers/gateway/gemini-cli.js';
import type { TestUpstream } from '../helpers/gateway/helpers.js';
import {
  cassetteBodies,
  chatSse,
  groqErrorBeforeText,
  replayUpstream,
  responsesSse,
} from '../helpers/gateway/provider-recordings.js';

let upstream: TestUpstream | undefined;
let gateway: Gateway | undefined;

afterEach(async () => {
  await gateway?.close();
  await upstream?.close();
});

async function start(
  body: string,
  model: string,
  kind: 'openai-chat' | 'openai-responses' = 'openai-chat',
): Promise<Gateway> {
  upstream = await replayUpstream([body]);
  gateway = await createGateway({
    upstream: { kind, baseUrl: `${upstream.url}/v1`, apiKey: 'sk-upstream-test' },
    modelMap: { '*': model },
    logger: silentLogger,
  });
  return gateway;
}

/** Runs the CLI once on `gw`: it must end on its own, not retry, ask the upstream once, and exit non-zero. */
async function askedOnceAndFailed(gw: Gateway): Promise<GeminiCliRun> {
  const run = await runGeminiCli({
    baseUrl: gw.url,
    apiKey: gw.token,
    prompt: 'answer in one word',
    model: 'gemini-2.5-flash',
    timeoutMs: 200_000,
  });
  expect(run.timedOut, run.stderr).toBe(false);
  expect(retryLines(run.stderr)).toEqual([]);
  expect(upstream?.requests).toHaveLength(1);
  expect(run.exitCode, run.stderr).not.toBe(0);
  return run;
}

/** The assistant text of a stream-json run, as the CLI printed it. */
function assistantText(events: Record<string, unknown>[]): string {
  return events
    .filter((e) => e.type === 'message' && e.role === 'assistant')
    .map((e) => String(e.content ?? ''))
    .join('');
}

describe.skipIf(!existsSync(GEMINI_CLI_ENTRY))('Gemini CLI on recorded provider streams', () => {
  it('Groq tool_use_failed (status_code 400) after streamed text: the turn ends as an error, never as a clean finish', async () => {
    const body = cassetteBodies('groq/test_tool_use_failed_error_streaming_with_text.yaml')[0] ?? '';
    const gw = await start(body, 'openai/gpt-oss-120b');
    const run = await runGeminiCli({
      baseUrl: gw.url,
      apiKey: gw.token,
      prompt: 'answer in one word',
      model: 'gemini-2.5-flash',
      timeoutMs: 200_000,
    });
    expect(run.timedOut, run.stderr).toBe(false);
    // The error event is the stream's last frame (no finish after it). @google/genai 1.30 inside the CLI yields
    // it as an empty chunk, so the CLI reads a stream without a finish and asks again, at most its 4 mid-stream
    // attempts (docs/reference/gemini-api.md#who-retries-what), printing the text once per attempt, then ends
    // the turn with status error. It used to get a closing finishReason OTHER after the error and end the turn
    // as a success on the half answer.
    const result = run.events.find((e) => e.type === 'result') as { status: string } | undefined;
    expect(result?.status, run.stdout).toBe('error');
    expect(upstream?.requests.length).toBeGreaterThanOrEqual(1);
    expect(upstream?.requests.length).toBeLessThanOrEqual(4);
    expect(assistantText(run.events)).toMatch(/^(maybe){1,4}$/);
  }, 240_000);

  it('Mistral list content: the answer is shown, first time, no retries (mistral/mistral-reasoning.chunks.txt)', async () => {
    const gw = await start(chatSse('mistral/mistral-reasoning.chunks.txt'), 'magistral-medium-2507');
    const run = await runGeminiCli({
      baseUrl: gw.url,
      apiKey: gw.token,
      prompt: 'What is 2+2?',
      model: 'gemini-2.5-flash',
    });
    expect(run.timedOut, run.stderr).toBe(false);
    expect(run.exitCode, run.stderr).toBe(0);
    expect(retryLines(run.stderr)).toEqual([]);
    expect(assistantText(run.events)).toBe('2 + 2 = 4');
    expect(upstream?.requests).toHaveLength(1);
  }, 120_000);

  it('Groq tool_use_failed before any text: the CLI gets the 400 as the HTTP status, asks once, no retries', async () => {
    const run = await askedOnceAndFailed(await start(groqErrorBeforeText(), 'openai/gpt-oss-120b'));
    const result = run.events.find((e) => e.type === 'result') as
      | { status: string; error?: { message: string } }
      | undefined;
    expect(result?.status, run.stdout).toBe('error');
    expect(result?.error?.message).toContain('tool_use_failed');
  }, 240_000);

  it('OpenAI Responses insufficient_quota before any content: an HTTP 429 with a daily quota, asked once, no retries (openai/openai-error.1.chunks.txt)', async () => {
    const gw = await start(
      responsesSse('openai/openai-error.1.chunks.txt')[0] ?? '',
      'gpt-5-nano',
      'openai-responses',
    );
    await askedOnceAndFailed(gw);
  }, 240_000);
});
