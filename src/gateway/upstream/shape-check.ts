/**
 * A plain predicate compiled from a zod schema, for the hot path of reading upstream events: `true` only when
 * the value is already exactly what the schema's parse would return, so the caller may use it as is and skip
 * zod (a CPU profile of the xAI recording put zod's object walk at about 12 % of the translation). The schema
 * stays the one definition of what a field may be: the predicate is derived from it, never written by hand.
 *
 * Only what the wire schemas use is understood: loose objects (unknown keys kept, so the output equals the
 * input), optional, nullable, string, number (finite, as zod's), unknown, array and union. Anything else
 * (refinements, strict or stripping objects, transforms, catch) compiles to "never matches", which sends every
 * value through zod: slower, never wrong.
 */
import type { z } from 'zod/v4';

/** Whether a value already is its own parse. */
export type ShapeCheck = (value: unknown) => boolean;

/** The internal definition zod keeps on every schema (`schema._zod.def`), as far as read here. */
interface Def {
  type: string;
  checks?: unknown[];
  innerType?: Schema;
  element?: Schema;
  options?: Schema[];
  shape?: Record<string, Schema>;
  catchall?: Schema;
}
interface Schema {
  _zod: { def: Def };
}

const never: ShapeCheck = () => false;

/** Compiles `schema` into its shape check. */
export function compileShapeCheck(schema: z.ZodType): ShapeCheck {
  return compile(schema as unknown as Schema);
}

function compile(schema: Schema): ShapeCheck {
  const def = schema._zod.def;
  // A refinement (`.min()`, `.regex()`, …) is not a shape: leave such values to zod.
  if (def.checks !== undefined && def.checks.length > 0) return never;
  switch (def.type) {
    case 'string':
      return (v) => typeof v === 'string';
    case 'number':
      return (v) => typeof v === 'number' && Number.isFinite(v);
    case 'unknown':
      return () => true;
    case 'optional': {
      const inner = compile(def.innerType as Schema);
      return (v) => v === undefined || inner(v);
    }
    case 'nullable': {
      const inner = compile(def.innerType as Schema);
      return (v) => v === null || inner(v);
    }
    case 'array': {
      const item = compile(def.element as Schema);
      return (v) => {
        if (!Array.isArray(v)) return false;
        for (const e of v) if (!item(e)) return false;
        return true;
      };
    }
    case 'union': {
      const options = (def.options ?? []).map(compile);
      return (v) => {
        for (const option of options) if (option(v)) return true;
        return false;
      };
    }
    case 'object': {
      // Only a loose object returns its input's keys unchanged; a stripping or strict one does not.
      if (def.catchall?._zod.def.type !== 'unknown') return never;
      const fields = Object.entries(def.shape ?? {}).map(([key, s]) => [key, compile(s)] as const);
      return (v) => {
        if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
        const record = v as Record<string, unknown>;
        // zod copies keys by assignment, so an own `__proto__` key (JSON.parse makes one) becomes the copy's
        // prototype: such a value is not its own parse.
        if (Object.hasOwn(record, '__proto__')) return false;
        for (const [key, check] of fields) if (!check(record[key])) return false;
        return true;
      };
    }
    default:
      return never;
  }
}
