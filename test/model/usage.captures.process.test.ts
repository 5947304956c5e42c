/**
 * Usage in spans equals usage in TurnResult, exactly, for every real agy capture with a whole turn
 * (../shared/fixtures/agy-real/, replayed through the real Agent and spawn path as test/connection/agy/stream-json/normalize.captures.process.test.ts
 * does): the turn span carries TurnResult.usage, and the turn's own `chat` spans (one per DONE usage-bearing
 * step, each counted once) sum to it whenever agy reported step usage
 * (docs/reference/stream-json.md#result-only-usage: otherwise the turn's usage comes from the result alone).
 */
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { afterAll, describe, expect, it } from 'vitest';
import { useReplay } from '../helpers/capture-replay.js';
import { CAPTURES, HAVE_CAPTURES, NO_CAPTURES_REASON } from '../helpers/captures.js';
import { childrenOf, one, otelKit } from '../helpers/otel-kit.js';

const kit = otelKit({ global: true });
afterAll(() => kit.shutdown());

const KEYS = {
  inputTokens: 'gen_ai.usage.input_tokens',
  outputTokens: 'gen_ai.usage.output_tokens',
  thinkingTokens: 'gen_ai.usage.reasoning.output_tokens',
  cacheReadTokens: 'gen_ai.usage.cache_read.input_tokens',
  totalTokens: 'agy_sdk.usage.total_tokens',
} as const;

function usageOf(span: ReadableSpan): Record<keyof typeof KEYS, number> | null {
  if (span.attributes[KEYS.inputTokens] === undefined) return null;
  return Object.fromEntries(Object.entries(KEYS).map(([k, a]) => [k, Number(span.attributes[a])])) as Record<
    keyof typeof KEYS,
    number
  >;
}

describe.skipIf(!HAVE_CAPTURES)(
  HAVE_CAPTURES
    ? 'span usage == TurnResult usage over every whole-turn capture'
    : `skipped: ${NO_CAPTURES_REASON}`,
  () => {
    const replay = useReplay();
    it.each(CAPTURES.filter((c) => !c.usageNotWhole).map((c) => [c.stdout, c]))(
      '%s',
      async (_name, capture) => {
        kit.exporter.reset();
        const { result, steps, agent } = await replay(capture);
        await agent.close();
        expect(result.status).toBe(capture.status);
        const spans = kit.spans();
        const turn = one(spans, 'invoke_agent agy');
        const usage = result.usage && {
          inputTokens: result.usage.inputTokens,
          outputTokens: result.usage.outputTokens,
          thinkingTokens: result.usage.thinkingTokens,
          cacheReadTokens: result.usage.cacheReadTokens,
          totalTokens: result.usage.totalTokens,
        };
        expect(usageOf(turn)).toEqual(usage);
        const chats = childrenOf(spans, turn).filter((s) => s.name.startsWith('chat '));
        const stepUsage = steps.some((s) => s.state === 'DONE' && s.usage && !s.subagent);
        if (stepUsage && usage) {
          const sum = {
            inputTokens: 0,
            outputTokens: 0,
            thinkingTokens: 0,
            cacheReadTokens: 0,
            totalTokens: 0,
          };
          for (const chat of chats) {
            const u = usageOf(chat);
            if (!u) continue;
            for (const k of Object.keys(sum) as (keyof typeof sum)[]) sum[k] += u[k];
          }
          expect(sum).toEqual(usage);
        } else {
          expect(chats.every((c) => usageOf(c) === null)).toBe(true);
        }
      },
    );
  },
);
