/**
 * The small amount of Markdown-with-frontmatter reading that rules (`rules/*.md`) and custom agents
 * (`agents/<name>/agent.md`) need (docs/reference/plugins-and-config.md#rules, docs/reference/plugins-and-config.md#custom-agents): a leading `---` block of `key: value` lines, then the body.
 * Not a YAML parser: one level of scalar keys, optionally quoted, is all these files use.
 */

/** A parsed Markdown file: frontmatter scalars (keys as written) and the body after the block. */
export interface FrontmatterDoc {
  fields: Record<string, string>;
  body: string;
}

const FENCE = /^---[ \t]*$/;

/**
 * Splits `text` into frontmatter and body. Without a closing `---` the whole text is the body, as with no
 * frontmatter at all.
 */
export function parseFrontmatter(text: string): FrontmatterDoc {
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  if (lines.length === 0 || !FENCE.test(lines[0] ?? '')) return { fields: {}, body: text };
  const close = lines.findIndex((line, i) => i > 0 && FENCE.test(line));
  if (close === -1) return { fields: {}, body: text };
  const fields: Record<string, string> = {};
  for (const line of lines.slice(1, close)) {
    const match = /^([A-Za-z_][\w-]*)[ \t]*:[ \t]*(.*)$/.exec(line);
    if (match === null) continue;
    fields[match[1] as string] = unquote((match[2] as string).trim());
  }
  return { fields, body: lines.slice(close + 1).join('\n') };
}

function unquote(value: string): string {
  if (value.length >= 2 && value.startsWith('"') && value.endsWith('"')) {
    try {
      const parsed: unknown = JSON.parse(value);
      if (typeof parsed === 'string') return parsed;
    } catch {
      // Not a JSON string: fall through to a plain strip.
    }
    return value.slice(1, -1);
  }
  if (value.length >= 2 && value.startsWith("'") && value.endsWith("'")) {
    return value.slice(1, -1).replaceAll("''", "'");
  }
  // A trailing ` # comment` is YAML's; keep `#` inside values otherwise.
  return value.replace(/\s+#.*$/, '');
}

/**
 * The first `maxBytes` bytes of `bytes` as UTF-8 text, backing off to a character boundary so a multi-byte
 * character is never split (agy cuts rule files at 24,000 bytes).
 */
export function cutUtf8(bytes: Buffer, maxBytes: number): string {
  if (bytes.length <= maxBytes) return bytes.toString('utf8');
  let end = maxBytes;
  // Continuation bytes are 10xxxxxx: step back to the start of the character that straddles the cut.
  while (end > 0 && ((bytes[end] as number) & 0xc0) === 0x80) end--;
  return bytes.subarray(0, end).toString('utf8');
}
