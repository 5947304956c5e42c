/**
 * Rule files: how system instructions reach agy. agy has no system-prompt flag, so instructions are a rule
 * with `trigger: always_on` frontmatter in a plugin under the session directory (docs/reference/plugins-and-config.md#session-directory,
 * docs/reference/plugins-and-config.md#rules). agy cuts each rule file at 24,000 bytes, so longer ones are refused.
 */
import { ConfigError } from '../../../errors.js';

/** agy truncates rule files beyond this many bytes. */
export const MAX_RULE_BYTES = 24_000;

/** One titled section of templated instructions. */
export interface SystemInstructionSection {
  /** Section heading. */
  title: string;
  /** Section body (Markdown). */
  content: string;
}

/** Instructions that replace the backend's system prompt (Python `CustomSystemInstructions`). */
export interface CustomSystemInstructions {
  /** Replace, not append: only where the backend can (Gemini CLI over ACP); refused on agy. */
  mode: 'replace';
  /** The whole system prompt. */
  text: string;
}

/**
 * System instructions: a string (used as is), or an identity plus sections (Python
 * `TemplatedSystemInstructions`); either is *appended* to agy's own defaults. `{ mode: 'replace', text }`
 * replaces the system prompt where the backend can; agy offers no way to, so there it is refused.
 */
export type SystemInstructions =
  | string
  | {
      /** Who the agent is; rendered first, before the sections. */
      identity?: string;
      /** Sections rendered in order, each under a `## title` heading. */
      sections?: SystemInstructionSection[];
      /** Append to the backend's defaults (the default, and the only mode on agy). */
      mode?: 'append';
    }
  | CustomSystemInstructions;

/** Whether instructions ask to replace the system prompt. */
export function isReplaceInstructions(si: unknown): si is CustomSystemInstructions {
  return typeof si === 'object' && si !== null && (si as { mode?: unknown }).mode === 'replace';
}

/** Renders instructions as Markdown (replacing ones: their text). */
export function renderInstructions(si: SystemInstructions): string {
  if (typeof si === 'string') return si;
  if (isReplaceInstructions(si)) return si.text;
  const parts: string[] = [];
  if (si.identity) parts.push(si.identity);
  for (const s of si.sections ?? []) parts.push(`## ${s.title}\n\n${s.content}`);
  return parts.join('\n\n');
}

/** A rule file with `trigger: always_on` frontmatter; throws `ConfigError` over 24,000 bytes. */
export function alwaysOnRule(field: string, description: string, body: string): string {
  const text = `---\ntrigger: always_on\ndescription: ${JSON.stringify(description)}\n---\n\n${body.trim()}\n`;
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes > MAX_RULE_BYTES) {
    throw new ConfigError(
      field,
      `is ${bytes} bytes as a rule file; agy cuts rule files at ${MAX_RULE_BYTES} bytes`,
    );
  }
  return text;
}
