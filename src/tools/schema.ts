/**
 * The small structural shape of a zod 4 object schema the SDK relies on (its own file so `tool.ts` and
 * `tool-result.ts` share it without importing each other).
 */

/** One problem a schema found, as zod reports it. */
export interface SchemaIssue {
  /** Where in the value. */
  readonly path: readonly PropertyKey[];
  /** What is wrong. */
  readonly message: string;
}

/** What `safeParse` returns, reduced to what the SDK reads. */
export type SchemaParseResult =
  | { readonly success: true; readonly data: Record<string, unknown> }
  | { readonly success: false; readonly error: { readonly issues: readonly SchemaIssue[] } };

/**
 * The part of a zod 4 object schema (`z.object`, `z.strictObject`, `z.looseObject`, refined) the SDK relies
 * on. Deliberately structural and small: constraining on zod's own `ZodObject` type made TypeScript compare
 * the user's zod copy against ours member by member (TS2589 "excessively deep", minutes of tsc) whenever the
 * two copies differed. Any zod 4 object schema fits, whichever copy it comes from.
 */
export interface ZodObjectSchema {
  /** zod's internals: the definition kind and the phantom input/output types. */
  readonly _zod: {
    readonly def: { readonly type: 'object' };
    readonly input: unknown;
    readonly output: unknown;
  };
  /** Validates a value without throwing. */
  safeParse(data: unknown): SchemaParseResult;
}
