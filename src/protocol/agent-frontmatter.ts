/**
 * The custom agent frontmatter's shape (docs/reference/plugins-and-config.md#custom-agents), built from a given
 * zod: `agy-files.ts` builds it with the rest of the file shapes, and the Agent constructor's subagent check
 * builds it on first use, so importing the check does not load zod.
 */
import type { z } from 'zod/v4';

/** agy's plugin name pattern (docs/reference/plugins-and-config.md#plugin-manifest). */
export const PLUGIN_NAME_PATTERN = /^[a-zA-Z0-9-_]+$/;

/** Custom agent frontmatter: `.agents/agents/<name>/agent.md`, built with `zod`. */
export function agentFrontmatterSchema(zod: typeof z) {
  return zod.strictObject({
    name: zod.string().regex(PLUGIN_NAME_PATTERN),
    description: zod.string().min(1),
    subagent: zod.boolean(),
  });
}
