/**
 * The one check of a fleet job: `fleet.add()` refuses a bad job with it, and the worker checks every job it
 * takes with it again (a job can be added straight through BullMQ), failing a bad one once, unretried.
 */

import { z } from 'zod/v4';
import { ConfigError } from '../errors.js';
import { durationSchema } from '../internal/duration.js';
import { ResponseSchema } from '../model/response-schema.js';
import type { FleetJob } from './types.js';

const nonEmpty = (what: string) =>
  z.string({ error: `must be ${what}` }).refine((s) => s.trim() !== '', { error: `must be ${what}` });

/** A JSON Schema object that compiles (as the Agent would compile it for the turn). */
const jsonSchema = z.custom<Record<string, unknown>>(
  (value) => {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
    try {
      ResponseSchema.from(value as Record<string, unknown>);
      return true;
    } catch {
      return false;
    }
  },
  { error: 'must be a JSON Schema object that compiles' },
);

/** `FleetJob`, field by field (strict: an unknown field is refused by name). */
export const FleetJobSchema = z.strictObject(
  {
    key: nonEmpty('a non-empty string'),
    prompt: nonEmpty('a non-empty string'),
    config: z
      .strictObject(
        {
          turnTimeoutMs: durationSchema({ integer: true }).optional(),
          responseSchema: jsonSchema.optional(),
        },
        { error: 'must be { turnTimeoutMs?, responseSchema? }' },
      )
      .optional(),
  },
  { error: 'must be { key, prompt, config? }' },
);

/** What a worker stores with a job besides the job itself: the rate-limit retries it has used. */
export const StoredJobSchema = FleetJobSchema.extend({
  rateLimitRetries: z.number().int().nonnegative().optional(),
});

/** A job as a worker stores it. */
export type StoredJob = z.infer<typeof StoredJobSchema>;

function describe(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

function check<T>(schema: z.ZodType<T>, data: unknown): T {
  const parsed = schema.safeParse(data);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  const path = issue.path.map((k) => (typeof k === 'number' ? `[${k}]` : `.${String(k)}`)).join('');
  const unknownKeys = issue.code === 'unrecognized_keys' ? issue.keys : undefined;
  if (unknownKeys) return failWith(`job${path}.${unknownKeys[0]}`, 'is not a fleet job field');
  const value = issue.path.reduce<unknown>(
    (v, k) => (v !== null && typeof v === 'object' ? (v as Record<PropertyKey, unknown>)[k] : undefined),
    data,
  );
  return failWith(`job${path}`, `${issue.message}, got ${describe(value)}`);
}

function failWith(field: string, message: string): never {
  throw new ConfigError(field, message);
}

/** Checks a job for `add()`; throws `ConfigError` naming the field (`job.key`, `job.config.turnTimeoutMs`, …). */
export function checkFleetJob(job: unknown): FleetJob {
  return check(FleetJobSchema, job) as FleetJob;
}

/** Checks a job a worker took (the same schema, plus the worker's own counter). */
export function checkStoredJob(data: unknown): StoredJob {
  return check(StoredJobSchema, data);
}
