/**
 * A nesting-depth bound for JSON from outside the host (agy's stdout, agy's hook and MCP requests).
 *
 * `JSON.parse` is iterative in V8 and parses any depth, but `JSON.stringify`, zod, `structuredClone` and most
 * user code walk values recursively: a value ~5,000 levels deep throws `RangeError: Maximum call stack size
 * exceeded` wherever it is first walked, often inside an event handler where nothing catches it. So every
 * such value is checked once, right after parsing, and a deeper one is refused there.
 */

/** The deepest nesting accepted (objects and arrays; the top-level value is depth 1). */
export const MAX_JSON_DEPTH = 512;

/**
 * Whether `value` (as `JSON.parse` returns it) nests deeper than `maxDepth`. Iterative, so it is safe on any
 * depth; it visits each container once.
 */
export function exceedsJsonDepth(value: unknown, maxDepth: number = MAX_JSON_DEPTH): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const values: object[] = [value];
  const depths: number[] = [1];
  while (values.length > 0) {
    const current = values.pop() as Record<string, unknown> | unknown[];
    const depth = depths.pop() as number;
    if (depth > maxDepth) return true;
    if (Array.isArray(current)) {
      for (const item of current) {
        if (typeof item === 'object' && item !== null) {
          values.push(item);
          depths.push(depth + 1);
        }
      }
    } else {
      for (const key in current) {
        const item = current[key];
        if (typeof item === 'object' && item !== null) {
          values.push(item);
          depths.push(depth + 1);
        }
      }
    }
  }
  return false;
}

/**
 * Whether the JSON text `text` could nest deeper than `maxDepth` at all: each level takes at least two
 * characters (`[` and `]`), so a shorter text never needs the walk. Lets hot paths skip it for short lines.
 */
export function mayExceedJsonDepth(text: string, maxDepth: number = MAX_JSON_DEPTH): boolean {
  return text.length > 2 * maxDepth;
}
