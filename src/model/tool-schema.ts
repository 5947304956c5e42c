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
  | {
      /** The value matched the schema. */
      readonly success: true;
      /** The parsed object. */
      readonly data: Record<string, unknown>;
    }
  | {
      /** The value did not match the schema. */
      readonly success: false;
      /** Why it did not match. */
      readonly error: {
        /** One entry per mismatch. */
        readonly issues: readonly SchemaIssue[];
      };
    };

/**
 * The part of a zod 4 object schema (`z.object`, `z.strictObject`, `z.looseObject`, refined) the SDK relies
 * on. Deliberately structural and small: constraining on zod's own `ZodObject` type made TypeScript compare
 * the user's zod copy against ours member by member (TS2589 "excessively deep", minutes of tsc) whenever the
 * two copies differed. Any zod 4 object schema fits, whichever copy it comes from.
 */
export interface ZodObjectSchema {
  /** zod's internals: the definition kind and the phantom input/output types. */
  readonly _zod: {
    /** The schema's definition. */
    readonly def: {
      /** The definition kind: always `object` here. */
      readonly type: 'object';
    };
    /** Phantom: carries the accepted type (`z.input`) for type inference; no value at runtime. */
    readonly input: unknown;
    /** Phantom: carries the parsed type (`z.output`) for type inference; no value at runtime. */
    readonly output: unknown;
  };
  /** Validates a value without throwing. */
  safeParse(data: unknown): SchemaParseResult;
}
