/**
 * `structuredOutput()` typed from a per-turn zod `responseSchema`: `agent.chat(p, { responseSchema: S })`
 * returns `ChatResponse<z.infer<S>>`, whose `structuredOutput()` is `Promise<z.infer<S>>` (it rejects when the
 * value is missing); `new Agent({ responseSchema: S })` types every turn without its own schema the same way. The
 * `expectTypeOf` assertions are checked by `tsc --noEmit -p .` (tests are in the project); the runtime halves
 * check that the typed value is the one the turn produced.
 */
import { describe, expect, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import { Agent, type ChatResponse, type InferResponseSchema, type JsonSchema } from '../../src/index.js';
import { InMemoryConnection } from '../../src/testing/index.js';

const Verdict = z.object({ verdict: z.enum(['yes', 'no']), score: z.number().optional() });
type Verdict = z.infer<typeof Verdict>;

describe('structuredOutput() typed by the turn schema', () => {
  it('infers ChatResponse<T> from a zod responseSchema; structuredOutput() is Promise<T>', async () => {
    const conn = new InMemoryConnection({ turns: [{ result: { structuredOutput: { verdict: 'yes' } } }] });
    await using agent = new Agent({ connection: conn.connect });
    const response = await agent.chat('judge', { responseSchema: Verdict });
    expectTypeOf(response).toEqualTypeOf<ChatResponse<Verdict>>();
    const pending = response.structuredOutput();
    expectTypeOf(pending).toEqualTypeOf<Promise<Verdict>>();
    const value = await pending;
    expectTypeOf(value).toEqualTypeOf<Verdict>();
    // No cast and no undefined check needed: a missing value rejects instead.
    expect(value.verdict).toBe('yes');
  });

  it("the agent's own zod responseSchema types every turn; a turn's own schema wins", async () => {
    const Analysis = z.object({ summary: z.string(), risk: z.enum(['low', 'high']) });
    const conn = new InMemoryConnection({
      turns: [
        { result: { structuredOutput: { summary: 'fine', risk: 'low' } } },
        { result: { structuredOutput: { verdict: 'no' } } },
      ],
    });
    await using agent = new Agent({ connection: conn.connect, responseSchema: Analysis });
    expectTypeOf(agent).toEqualTypeOf<Agent<typeof Analysis>>();
    const analysis = await (await agent.chat('analyse')).structuredOutput();
    expectTypeOf(analysis).toEqualTypeOf<z.infer<typeof Analysis>>();
    expect(analysis.risk).toBe('low');
    const verdict = await (await agent.chat('judge', { responseSchema: Verdict })).structuredOutput();
    expectTypeOf(verdict).toEqualTypeOf<Verdict>();
    expect(verdict.verdict).toBe('no');
  });

  it('a missing value rejects, so T needs no undefined', async () => {
    const conn = new InMemoryConnection({ turns: [{ result: { structuredOutput: undefined } }] });
    await using agent = new Agent({ connection: conn.connect });
    const response = await agent.chat('judge', { responseSchema: Verdict });
    await expect(response.structuredOutput()).rejects.toMatchObject({ name: 'TurnError' });
  });

  it('without a schema, or with a JSON Schema, the type stays unknown (existing code compiles unchanged)', async () => {
    const conn = new InMemoryConnection({
      turns: [
        { result: { structuredOutput: undefined } },
        { result: { structuredOutput: { n: 1 } } },
        { result: { structuredOutput: { verdict: 'no' } } },
      ],
    });
    await using agent = new Agent({ connection: conn.connect });
    const plain = await agent.chat('x');
    expectTypeOf(plain).toEqualTypeOf<ChatResponse>();
    expectTypeOf(plain).toEqualTypeOf<ChatResponse<unknown>>();
    expectTypeOf(await plain.structuredOutput()).toBeUnknown();
    expect(await plain.structuredOutput()).toBeUndefined();

    const schema: JsonSchema = { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] };
    const json = await agent.chat('y', { responseSchema: schema });
    expectTypeOf(await json.structuredOutput()).toBeUnknown();
    expect(await json.structuredOutput()).toEqual({ n: 1 });

    // An explicit type argument still asserts the type, as before the generic (no `| undefined`).
    const asserted = await agent.chat('z', { responseSchema: Verdict });
    const explicit = await asserted.structuredOutput<{ verdict: string }>();
    expectTypeOf(explicit).toEqualTypeOf<{ verdict: string }>();
    expect(explicit.verdict).toBe('no');
  });

  it('InferResponseSchema reads any zod 4 output type structurally, unknown for anything else', () => {
    expectTypeOf<InferResponseSchema<typeof Verdict>>().toEqualTypeOf<Verdict>();
    expectTypeOf<InferResponseSchema<z.ZodArray<z.ZodString>>>().toEqualTypeOf<string[]>();
    expectTypeOf<InferResponseSchema<JsonSchema>>().toBeUnknown();
    expectTypeOf<InferResponseSchema<undefined>>().toBeUnknown();
    // @ts-expect-error a ChatResponse typed by a schema does not turn an unrelated type into its output
    expectTypeOf<InferResponseSchema<typeof Verdict>>().toEqualTypeOf<{ verdict: number }>();
  });

  it('a value that does not fit the typed schema still fails the turn at run time (the type is not a promise)', async () => {
    const conn = new InMemoryConnection({ turns: [{ result: { structuredOutput: { verdict: 'maybe' } } }] });
    await using agent = new Agent({ connection: conn.connect });
    const response = await agent.chat('judge', { responseSchema: Verdict });
    await expect(response.structuredOutput()).rejects.toMatchObject({ name: 'TurnError' });
    expect((await response.result()).status).toBe('error');
  });
});
