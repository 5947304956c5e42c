/**
 * Shapes of the files the SDK writes for agy, as zod schemas, and the writer that validates before writing.
 * agy silently drops files and entries of the wrong shape (docs/reference/plugins-and-config.md#silent-drops), so a
 * file that does not validate is a bug in the SDK and must never reach agy.
 *
 * Sources: plugin.json, rules frontmatter, custom agents: docs/reference/plugins-and-config.md#plugin-manifest, docs/reference/plugins-and-config.md#rules, docs/reference/plugins-and-config.md#custom-agents. mcp_config.json: docs/reference/mcp.md#mcp-config-file.
 * hooks.json (bundle schema): docs/reference/hooks.md#hooks-file-shape.
 */
import { z } from 'zod/v4';
import { agentFrontmatterSchema, PLUGIN_NAME_PATTERN } from './agent-frontmatter.js';

export { PLUGIN_NAME_PATTERN };

/** `plugin.json`: parsed as protojson, so no duplicate or unknown-typed keys. */
export const PluginJsonSchema = z.strictObject({
  name: z.string().regex(PLUGIN_NAME_PATTERN),
  description: z.string().optional(),
  disabled: z.boolean().optional(),
});

/** A stdio server entry of `mcp_config.json`. `env` values must be strings. */
export const McpStdioEntrySchema = z.strictObject({
  command: z.string().min(1),
  args: z.array(z.string()).optional(),
  env: z.record(z.string(), z.string()).optional(),
  cwd: z.string().optional(),
  disabled: z.boolean().optional(),
  disabledTools: z.array(z.string()).optional(),
});

/** A Streamable HTTP server entry of `mcp_config.json`: agy's key is `serverUrl`, not `url`/`httpUrl`. */
export const McpHttpEntrySchema = z.strictObject({
  serverUrl: z.url(),
  headers: z.record(z.string(), z.string()).optional(),
  disabled: z.boolean().optional(),
  disabledTools: z.array(z.string()).optional(),
});

/** `mcp_config.json`. */
export const McpConfigSchema = z.strictObject({
  mcpServers: z.record(
    z.string().regex(/^[A-Za-z0-9_-]+$/),
    z.union([McpStdioEntrySchema, McpHttpEntrySchema]),
  ),
});
export type McpConfigFile = z.infer<typeof McpConfigSchema>;
export type McpConfigEntry = McpConfigFile['mcpServers'][string];

/**
 * One hook handler: an absolute path as one shell word — bare, or single-quoted when it holds shell syntax
 * (agy runs hook commands as command lines; see hook-commands.ts).
 */
export const HookHandlerSchema = z.strictObject({
  type: z.literal('command'),
  command: z
    .string()
    .refine((c) => c.startsWith('/') || c.startsWith("'/"), 'hook commands must be absolute paths'),
  timeout: z.number().int().positive().optional(),
});

/** A tool-event matcher group: `matcher` is a regex, or `*` for every tool. */
export const HookMatcherGroupSchema = z.strictObject({
  matcher: z.string(),
  hooks: z.array(HookHandlerSchema).min(1),
});

/** One bundle of `hooks.json`: top-level keys are bundle names mapping to event arrays. */
export const HookBundleSchema = z.strictObject({
  enabled: z.boolean().optional(),
  PreToolUse: z.array(HookMatcherGroupSchema).optional(),
  PostToolUse: z.array(HookMatcherGroupSchema).optional(),
  PreInvocation: z.array(HookHandlerSchema).optional(),
  PostInvocation: z.array(HookHandlerSchema).optional(),
  Stop: z.array(HookHandlerSchema).optional(),
  SessionStart: z.array(HookHandlerSchema).optional(),
});

/** `hooks.json`. */
export const HooksFileSchema = z.record(z.string().regex(/^[A-Za-z0-9_-]+$/), HookBundleSchema);
export type HooksFile = z.infer<typeof HooksFileSchema>;
export type HookBundle = z.infer<typeof HookBundleSchema>;

/** Rule frontmatter (docs/reference/plugins-and-config.md#rules). */
export const RuleFrontmatterSchema = z.strictObject({
  trigger: z.enum(['always_on', 'model_decision', 'glob', 'manual']),
  description: z.string().optional(),
  globs: z.string().optional(),
});

/** Custom agent frontmatter: `.agents/agents/<name>/agent.md` (docs/reference/plugins-and-config.md#custom-agents). */
export const AgentFrontmatterSchema = agentFrontmatterSchema(z);

/** Parses the frontmatter block of a Markdown file into a flat record of scalars (the subset we write). */
export function parseFrontmatter(text: string): Record<string, unknown> | undefined {
  const m = /^---\n([\s\S]*?)\n---\n/.exec(text);
  if (!m) return undefined;
  const out: Record<string, unknown> = {};
  for (const line of m[1]!.split('\n')) {
    const kv = /^([A-Za-z_][\w-]*):\s*(.*)$/.exec(line);
    if (!kv) continue;
    const raw = kv[2]!.trim();
    out[kv[1]!] =
      raw === 'true' ? true : raw === 'false' ? false : raw.startsWith('"') ? JSON.parse(raw) : raw;
  }
  return out;
}

/** Renders a frontmatter block from scalars (strings JSON-quoted, so any text is safe YAML). */
export function renderFrontmatter(fields: Record<string, string | boolean>): string {
  const lines = Object.entries(fields).map(
    ([k, v]) => `${k}: ${typeof v === 'string' ? JSON.stringify(v) : v}`,
  );
  return `---\n${lines.join('\n')}\n---\n`;
}

/** Validates `value` against `schema` or throws an Error naming the file: an SDK bug, never user input. */
export function validated<T>(schema: z.ZodType<T>, value: unknown, file: string): T {
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ');
    throw new Error(`agy-sdk: refusing to write ${file}, which agy would silently drop: ${issues}`);
  }
  return parsed.data;
}
