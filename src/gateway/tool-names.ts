/**
 * Function names made safe for OpenAI and Anthropic (`^[a-zA-Z0-9_-]{1,64}$`), with the map back to the client's
 * names (docs/reference/gateway-translation.md#pipeline-and-normalisation).
 */
import { createHash } from 'node:crypto';

const SAFE_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

/** An upstream-safe function name: kept when valid, else sanitized with a short hash of the original. */
export function safeToolName(name: string): string {
  if (SAFE_NAME.test(name)) return name;
  const hash = createHash('sha256').update(name).digest('hex').slice(0, 8);
  return `${name.replace(/[^a-zA-Z0-9_-]/g, '_').slice(0, 55)}_${hash}`;
}

/** Names one request's functions: returns the safe name and remembers it in `names` (safe → original). */
export type ToolNamer = (original: string) => string;

/** A namer filling `names` (upstream-safe name → the client's original). */
export function toolNamer(names: Map<string, string>): ToolNamer {
  return (original) => {
    const safe = safeToolName(original);
    names.set(safe, original);
    return safe;
  };
}
