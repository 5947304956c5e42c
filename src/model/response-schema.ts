/**
 * Structured output. `responseSchema` is a zod schema or a JSON Schema object. It is written to a file and
 * passed as `--json-schema <file>`; agy returns `result.structured_output`, which is validated here. A missing
 * value or a mismatch is a typed failure, never `success` with nothing (docs/reference/design-sources.md#typed-structured-output).
 */
import { createRequire } from 'node:module';
import type { ValidateFunction } from 'ajv';
import type { z } from 'zod/v4';
import { ConfigError, StructuredOutputError } from '../errors.js';
import { zod } from '../internal/load-sync.js';

/**
 * ajv's class, loaded on the first JSON Schema given as a `responseSchema`: about 35 ms of `import 'agy-sdk'`
 * that an agent with a zod schema, or none, never needs.
 */
let ajvClass: typeof import('ajv').Ajv | undefined;
function ajv(): typeof import('ajv').Ajv {
  ajvClass ??= (createRequire(import.meta.url)('ajv') as typeof import('ajv')).Ajv;
  return ajvClass;
}

/** A JSON Schema object. */
export type JsonSchema = Record<string, unknown>;

/**
 * A zod 4 schema, read structurally (any copy of zod 4 fits; comparing against zod's own `ZodType` made
 * TypeScript walk both copies' types, TS2589, when the user's copy differed from ours).
 */
export interface ZodSchemaLike {
  /** zod's internals: the definition kind. */
  readonly _zod: {
    /** The schema's definition. */
    readonly def: {
      /** The definition kind, e.g. `object` or `string`. */
      readonly type: string;
    };
  };
  /** Validates a value without throwing. */
  safeParse(data: unknown): ZodSchemaParseResult;
}

/** What `safeParse` returns, reduced to what the SDK reads. */
export type ZodSchemaParseResult =
  | {
      /** The value matched the schema. */
      readonly success: true;
      /** The parsed value. */
      readonly data: unknown;
    }
  | {
      /** The value did not match the schema. */
      readonly success: false;
      /** Why it did not match. */
      readonly error: {
        /** One entry per mismatch. */
        readonly issues: readonly {
          /** Where in the value the mismatch is (empty for the root). */
          path: readonly PropertyKey[];
          /** What is wrong there. */
          message: string;
        }[];
      };
    };

/** What `responseSchema` accepts. */
export type ResponseSchemaInput = ZodSchemaLike | JsonSchema;

/**
 * The structured output type a `responseSchema` describes: a zod schema's output type (read structurally from
 * `_zod.output`, as `z.infer` does, so any copy of zod 4 fits), `unknown` for a JSON Schema or no schema.
 */
export type InferResponseSchema<S> = S extends ZodOutputLike<infer O> ? O : unknown;

/** A zod 4 schema's output type, as zod's internals carry it (what `z.infer` reads). */
export interface ZodOutputLike<O> {
  /** zod's internals. */
  readonly _zod: {
    /** The parsed value's type (a type-level field only). */
    readonly output: O;
  };
}

// Structural, not `instanceof`: a schema from another zod 4 copy is still zod, not a JSON Schema.
function isZod(v: unknown): v is ZodSchemaLike {
  const internals = (v as { _zod?: { def?: { type?: unknown } } } | null | undefined)?._zod;
  return (
    typeof internals?.def?.type === 'string' && typeof (v as { safeParse?: unknown }).safeParse === 'function'
  );
}

export class ResponseSchema {
  /** The JSON Schema agy receives. */
  readonly jsonSchema: JsonSchema;
  readonly #validate: (value: unknown) => { ok: true; value: unknown } | { ok: false; issues: string[] };

  private constructor(jsonSchema: JsonSchema, validate: ResponseSchema['validateValue']) {
    this.jsonSchema = jsonSchema;
    this.#validate = validate;
  }

  /** Builds from a zod schema or a JSON Schema; throws `ConfigError` for anything else. */
  static from(input: ResponseSchemaInput): ResponseSchema {
    if (isZod(input)) {
      let jsonSchema: JsonSchema;
      try {
        jsonSchema = zod().toJSONSchema(input as unknown as z.ZodType, { target: 'draft-7' }) as JsonSchema;
      } catch (err) {
        throw new ConfigError(
          'responseSchema',
          `cannot convert the zod schema to JSON Schema: ${(err as Error).message}`,
        );
      }
      return new ResponseSchema(jsonSchema, (value) => {
        const parsed = input.safeParse(value);
        return parsed.success
          ? { ok: true, value: parsed.data }
          : {
              ok: false,
              issues: parsed.error.issues.map(
                (i) => `${i.path.map(String).join('.') || '(root)'}: ${i.message}`,
              ),
            };
      });
    }
    if (typeof input !== 'object' || input === null || Array.isArray(input)) {
      throw new ConfigError('responseSchema', 'must be a zod schema or a JSON Schema object');
    }
    let validate: ValidateFunction;
    try {
      validate = new (ajv())({ allErrors: true, strict: false }).compile(input);
    } catch (err) {
      throw new ConfigError('responseSchema', `invalid JSON Schema: ${(err as Error).message}`);
    }
    return new ResponseSchema(input, (value) =>
      validate(value)
        ? { ok: true, value }
        : {
            ok: false,
            issues: (validate.errors ?? []).map(
              (e) => `${e.instancePath || '(root)'}: ${e.message ?? 'invalid'}`,
            ),
          },
    );
  }

  /** Validates a value (already parsed). */
  validateValue(value: unknown): { ok: true; value: unknown } | { ok: false; issues: string[] } {
    return this.#validate(value);
  }

  /**
   * Checks `result.structured_output`. agy may send the value as JSON text; that is parsed first.
   * Returns the validated value, or a `StructuredOutputError`.
   */
  check(raw: unknown): { ok: true; value: unknown } | { ok: false; error: StructuredOutputError } {
    if (raw === undefined || raw === null) {
      return { ok: false, error: new StructuredOutputError('agy returned no structured_output', raw) };
    }
    let value = raw;
    if (typeof raw === 'string') {
      try {
        value = JSON.parse(raw);
      } catch {
        return { ok: false, error: new StructuredOutputError('structured_output is not valid JSON', raw) };
      }
    }
    const verdict = this.#validate(value);
    return verdict.ok
      ? verdict
      : {
          ok: false,
          error: new StructuredOutputError(
            'structured_output does not match responseSchema',
            raw,
            verdict.issues,
          ),
        };
  }
}
