/**
 * The vocabulary of the one config description (`config-fields.ts`): what a backend does with an `AgentConfig`
 * field, which of a backend's groups it feeds, and the building blocks its validation is written with. Types and
 * small constructors only; it imports types at most (zod's, erased), so zod loads with the first config check,
 * not with the package, and `scripts/capability-table.mjs` can load the description on its own.
 */
import type { z } from 'zod/v4';

/** What the ACP backend does with a whole field, whatever its value. */
export type AcpFieldSupport =
  | { support: 'same' }
  | {
      support: 'mapped';
      /** What it becomes on ACP (docs/backends.md, "Python SDK fields per backend"). */
      how: string;
    }
  | {
      support: 'rejected';
      /** Why, and what to use instead. */
      why: string;
    };

/** What one backend does with one Python SDK setting (a field, a member of one, or one of its values). */
export type FieldSupport =
  | {
      support: 'yes';
      /** How the backend honours it. */
      how: string;
    }
  | {
      support: 'unsupported';
      /** Why not, and what to use instead. */
      why: string;
    };

/** One Python SDK setting per backend: honoured (and how) or refused with an `UnsupportedError`. */
export interface FieldSupportRow {
  /** agy over stream-json. */
  agy: FieldSupport;
  /** An ACP agent (the mappings are Gemini CLI's). */
  acp: FieldSupport;
  /**
   * Whether the field's value (set: not `undefined`) asks for this setting, so a backend that refuses it refuses
   * the config. Default: any value does.
   */
  when?: ((value: unknown) => boolean) | undefined;
}

/**
 * A validated group a field is forwarded in, whole, to a backend: agy's `session` (its files, listener and
 * hooks), `launch` (how the process is started and read) and `watchdog` (time limits), and the ACP backend's
 * `acp` settings. A field in none is used by the Agent itself (policies, hooks, tools, …).
 */
export type ConfigGroup = 'session' | 'launch' | 'watchdog' | 'acp';

/**
 * The shared validation parts a field's check is written with, built with zod on the first config check
 * (`agent/config-schema.ts`). The ones that know SDK objects (tools, hooks, built-in tool names, redaction
 * patterns) are built there, where those live.
 */
export interface SchemaKit {
  /** zod 4. */
  z: typeof z;
  /** A string that is not blank. */
  nonEmpty: z.ZodType<string>;
  /** A finite number above 0. */
  positive: z.ZodType<number>;
  /** A time in ms: above 0, at most Node's timer maximum (internal/duration.ts). */
  duration: z.ZodType<number>;
  /** {@link SchemaKit.duration}, or 0 for off. */
  durationOrOff: z.ZodType<number>;
  /** A whole number >= 0. */
  count: z.ZodType<number>;
  /** A price: a finite number >= 0, USD per million tokens. */
  usdPerMillion: z.ZodType<number>;
  /** A finite number >= 0; anything else is refused with `error`. */
  nonNegative: (error: string) => z.ZodType<number>;
  /** An object with the method `method` (duck-typed); anything else "must be `what` (with `method`)". */
  withMethod: (method: string, what: string) => z.ZodType<object>;
  /** Any function. */
  fn: z.ZodType<(...args: never[]) => unknown>;
  /** An absolute http(s) URL. */
  httpUrl: z.ZodType<string>;
  /** A `tool()` definition. */
  toolEntry: z.ZodType<object>;
  /** A hook from the `hooks.*` factories. */
  hookEntry: z.ZodType<object>;
  /** An array of built-in tool names (an unknown one is named, with the nearest known one). */
  toolNames: z.ZodType<string[]>;
  /** A cassette redaction pattern (a string or a RegExp that cannot match the empty string). */
  redactPattern: z.ZodType<string | RegExp>;
}

/** One `AgentConfig` field, described once: everything but its type and TSDoc, which are `AgentConfig`'s. */
export interface ConfigField {
  /** The backend groups it is forwarded in (none: the Agent uses it itself). */
  feeds: readonly ConfigGroup[];
  /** What the ACP backend does with it: the same as agy, mapped, or rejected (`ConfigError`) and why. */
  acp: AcpFieldSupport;
  /**
   * The Python SDK settings it carries, by the path a user writes (`capabilities.disabledTools`, or with a value:
   * `systemInstructions: { mode: 'replace' }`): per backend honoured or refused with an `UnsupportedError` naming
   * the part before `:`.
   */
  python?: Readonly<Record<string, FieldSupportRow>> | undefined;
  /** Its validation (the field is always optional: `undefined` passes). An issue's path names the field's part. */
  schema: (k: SchemaKit) => z.ZodType;
}

/** ACP: it means on ACP what it means on agy. */
/**
 * A field's check, typed as any check: the table's declaration then names no zod type of its own (a consumer on
 * zod 3.25's `zod/v4` reads our `.d.ts` with its own zod types, whose generics differ).
 */
export function checked(build: ConfigField['schema']): ConfigField['schema'] {
  return build;
}

export const same = { support: 'same' } as const;
/** ACP: it becomes something else there (`how`). */
export const mapped = (how: string): { support: 'mapped'; how: string } => ({ support: 'mapped', how });
/** ACP: setting it is a `ConfigError` naming the field and the backend, saying `why`. */
export const rejected = (why: string): { support: 'rejected'; why: string } => ({ support: 'rejected', why });
/** A Python setting a backend honours (`how`). */
export const yes = (how: string): FieldSupport => ({ support: 'yes', how });
/** A Python setting a backend refuses with an `UnsupportedError` (`why`). */
export const no = (why: string): FieldSupport => ({ support: 'unsupported', why });
/** The member `key` of a field's object value, for a row's `when` (the value has passed its schema). */
export const member = (value: unknown, key: string): unknown =>
  (value as Record<string, unknown> | undefined)?.[key];
