/**
 * Makes a cassette safe to attach to a bug report: the session token, API keys and bearer tokens, secret
 * environment values, the home directory, the user name, workspace, data-dir and session paths, and the
 * user's own `redact` patterns are replaced by placeholders (`<token>`, `<home>`, `<workspace>`, …), and
 * conversation ids (UUIDs) are rewritten consistently within the file to `00000000-0000-4000-8000-<n>`, so
 * a replay still resumes the same (fake) conversation. Applied to each serialized line.
 */
import { realpathSync } from 'node:fs';
import { homedir, tmpdir, userInfo } from 'node:os';

/** A pattern the user wants removed: a literal string, or a regular expression (its flags are kept, `g` added). */
export type RedactPattern = string | RegExp;

/** Well-known secret shapes: Google API keys and OAuth tokens, OpenAI/Anthropic keys, GitHub, Slack, AWS. */
const SECRET_PATTERNS: readonly [RegExp, string][] = [
  [/AIza[0-9A-Za-z_-]{35}/g, '<api-key>'],
  [/ya29\.[0-9A-Za-z_-]{20,}/g, '<oauth-token>'],
  [/\bsk-(?:ant-|proj-)?[0-9A-Za-z_-]{16,}/g, '<api-key>'],
  [/\bgh[pousr]_[0-9A-Za-z]{30,}/g, '<api-key>'],
  [/\bxox[abprs]-[0-9A-Za-z-]{10,}/g, '<api-key>'],
  [/\bAKIA[0-9A-Z]{16}\b/g, '<api-key>'],
  [/([Bb]earer\s+)[0-9A-Za-z._~+/=-]{8,}/g, '$1<bearer>'],
];

/** Environment names whose values are secrets. */
const SECRET_ENV = /KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|AUTH|COOKIE|SESSION_MARK/i;
const GENERIC_USERS = new Set(['root', 'node', 'user', 'admin', 'runner', 'ubuntu', 'debian', 'nobody']);
const UUID = /\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi;

/** What the recorder knows about the session. */
export interface SanitizeContext {
  /** The listener's per-session token. */
  token?: string | undefined;
  /** The session directory. */
  sessionDir?: string | undefined;
  /** `dataDir`, when set. */
  dataDir?: string | undefined;
  /** The user's workspaces. */
  workspaces?: readonly string[] | undefined;
  /** agy's working directory. */
  cwd?: string | undefined;
  /** The environment agy runs with (secret-looking values are removed). */
  env?: Record<string, string | undefined> | undefined;
  /** The user's own patterns (`record.redact`). */
  redact?: readonly RedactPattern[] | undefined;
}

interface Literal {
  value: string;
  placeholder: string;
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** The forms a literal takes inside a serialized line: raw, JSON-escaped once and twice (a line inside JSON). */
function forms(value: string): string[] {
  const once = JSON.stringify(value).slice(1, -1);
  const twice = JSON.stringify(once).slice(1, -1);
  return [...new Set([twice, once, value])];
}

function withReal(path: string): string[] {
  try {
    const real = realpathSync(path);
    return real === path ? [path] : [path, real];
  } catch {
    return [path];
  }
}

/** Replaces secrets and paths in cassette lines; one per cassette, so ids are rewritten consistently. */
export class Sanitizer {
  #literals: Literal[] = [];
  #compiled: RegExp | undefined;
  #byForm = new Map<string, string>();
  readonly #user: RegExp | undefined;
  readonly #patterns: [RegExp, string][];
  readonly #ids = new Map<string, string>();

  constructor(context: SanitizeContext = {}) {
    const user = safeUserName();
    // Generic account names (root, node, …) are words too common to replace, and say nothing about a person.
    this.#user =
      user && user.length >= 3 && !GENERIC_USERS.has(user)
        ? new RegExp(`\\b${escapeRegExp(user)}\\b`, 'g')
        : undefined;
    this.#patterns = [
      ...(context.redact ?? []).map((p): [RegExp, string] => [
        typeof p === 'string'
          ? new RegExp(escapeRegExp(p), 'g')
          : new RegExp(p.source, p.flags.includes('g') ? p.flags : `${p.flags}g`),
        '<redacted>',
      ]),
      ...SECRET_PATTERNS,
    ];
    this.update(context);
  }

  /** Adds what became known later (the token once the listener is up, the session directory). */
  update(context: SanitizeContext): void {
    const add = (value: string | undefined, placeholder: string, minLength = 4) => {
      if (value === undefined || value.length < minLength || value === '/') return;
      for (const v of withReal(value)) this.#literals.push({ value: v, placeholder });
    };
    add(context.token, '<token>', 8);
    for (const [name, value] of Object.entries(context.env ?? {})) {
      if (value !== undefined && SECRET_ENV.test(name)) add(value, `<secret:${name}>`, 8);
    }
    add(context.sessionDir, '<session>');
    add(context.dataDir, '<data-dir>');
    (context.workspaces ?? []).forEach((w, i) => {
      add(w, i === 0 ? '<workspace>' : `<workspace-${i + 1}>`);
    });
    add(context.cwd, '<cwd>');
    add(homedir(), '<home>');
    add(context.env?.HOME, '<home>');
    add(tmpdir(), '<tmp>', 5);
    this.#compile();
  }

  #compile(): void {
    this.#byForm.clear();
    for (const lit of this.#literals) {
      for (const form of forms(lit.value))
        if (!this.#byForm.has(form)) this.#byForm.set(form, lit.placeholder);
    }
    // Longest first: a session directory inside the data dir inside the home directory.
    const all = [...this.#byForm.keys()].sort((a, b) => b.length - a.length);
    this.#compiled = all.length ? new RegExp(all.map(escapeRegExp).join('|'), 'g') : undefined;
  }

  /** The line with every secret, path and id replaced. */
  line(text: string): string {
    let out = text;
    for (const [re, placeholder] of this.#patterns) out = out.replace(re, placeholder);
    if (this.#compiled) out = out.replace(this.#compiled, (m) => this.#byForm.get(m) ?? m);
    if (this.#user) out = out.replace(this.#user, '<user>');
    return out.replace(UUID, (id) => this.#id(id));
  }

  #id(id: string): string {
    const key = id.toLowerCase();
    let fake = this.#ids.get(key);
    if (!fake) {
      fake = `00000000-0000-4000-8000-${String(this.#ids.size + 1).padStart(12, '0')}`;
      this.#ids.set(key, fake);
    }
    return fake;
  }
}

function safeUserName(): string | undefined {
  try {
    return process.env.USER || process.env.LOGNAME || userInfo().username;
  } catch {
    return undefined;
  }
}
