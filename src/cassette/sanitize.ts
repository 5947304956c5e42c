/**
 * Makes a cassette safe to attach to a bug report. It works on decoded values, never on serialized text: every
 * string value of a record (and of a `line` that is itself JSON) has the session token, the credentials the
 * session was given (secret-named environment values, the MCP servers' `env` and `headers`, the gateway's
 * keys) in every form they take inside text, credentials in URLs, known key shapes, the home directory, the
 * user name, workspace, data-dir and session paths, and the user's own `redact` patterns replaced by
 * placeholders (`<token>`, `<secret:NAME>`, `<home>`, `<workspace>`, …); conversation ids (UUIDs) are
 * rewritten consistently within the file to `00000000-0000-4000-8000-<n>`, so a replay still resumes the same
 * (fake) conversation. Text a model streams in pieces is sanitized across its pieces.
 */
import { realpathSync } from 'node:fs';
import { homedir, tmpdir, userInfo } from 'node:os';
import type { McpServerConfig } from '../connection/mcp-server-config.js';
import { compileRedact, type RedactPattern, redactWarnings } from './redact-patterns.js';
import { type RuleSet, sanitizeLine, sanitizeRecords, walk } from './sanitize-records.js';
import {
  type Credential,
  credentialForms,
  envCredentials,
  KEY_SHAPES,
  MIN_SECRET_LENGTH,
  mcpCredentials,
  namedCredentials,
  pathForms,
  URL_SHAPES,
} from './sanitize-secrets.js';
import { CachedRules, escapeRegExp, literalRule, RedactTally, type TextRule } from './sanitize-text.js';

export type { RedactPattern } from './redact-patterns.js';

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
  /**
   * The environment the agent runs with: values under secret-looking names are removed, and the credentials
   * of a URL in any value.
   */
  env?: Record<string, string | undefined> | undefined;
  /**
   * The user's MCP servers (`AgentConfig.mcpServers`): their `env` like `env`, every header value but the
   * standard non-secret ones (`Accept`, `Content-Type`, `User-Agent`, …), the credentials in their URL.
   */
  mcpServers?: Record<string, McpServerConfig> | undefined;
  /** More credentials by name, each value secret whatever the name (the gateway's upstream key and headers). */
  credentials?: Record<string, string | undefined> | undefined;
  /** The user's own patterns (`record.redact`). */
  redact?: readonly RedactPattern[] | undefined;
}

function withReal(path: string): string[] {
  try {
    const real = realpathSync(path);
    return real === path ? [path] : [path, real];
  } catch {
    return [path];
  }
}

/** Replaces secrets and paths in cassette values; one per cassette, so ids are rewritten consistently. */
export class Sanitizer {
  readonly #credentials = new Map<string, string>();
  readonly #paths = new Map<string, string>();
  readonly #redact: readonly RedactPattern[] | undefined;
  readonly #redactRules: readonly TextRule[];
  readonly #user: TextRule | undefined;
  readonly #ids = new Map<string, string>();
  #set!: RuleSet;

  /** @throws ConfigError when a `redact` pattern is not a string or RegExp, or matches the empty string. */
  constructor(context: SanitizeContext = {}) {
    this.#redact = context.redact;
    this.#redactRules = compileRedact(context.redact);
    const user = safeUserName();
    // Generic account names (root, node, …) are words too common to replace, and say nothing about a person.
    this.#user =
      user && user.length >= 3 && !GENERIC_USERS.has(user)
        ? { re: new RegExp(`\\b${escapeRegExp(user)}\\b`, 'g'), replace: () => '<user>' }
        : undefined;
    this.update(context);
  }

  /** Adds what became known later (the token once the listener is up, the session directory). */
  update(context: SanitizeContext): void {
    const credential = ({ value, placeholder }: Credential) => {
      for (const form of credentialForms(value))
        if (!this.#credentials.has(form)) this.#credentials.set(form, placeholder);
    };
    if (context.token && context.token.length >= MIN_SECRET_LENGTH)
      credential({ value: context.token, placeholder: '<token>' });
    for (const c of namedCredentials(context.credentials)) credential(c);
    for (const c of mcpCredentials(context.mcpServers)) credential(c);
    for (const c of envCredentials(context.env)) credential(c);
    const path = (value: string | undefined, placeholder: string, minLength = 4) => {
      if (value === undefined || value.length < minLength || value === '/') return;
      for (const v of withReal(value))
        for (const form of pathForms(v)) if (!this.#paths.has(form)) this.#paths.set(form, placeholder);
    };
    path(context.sessionDir, '<session>');
    path(context.dataDir, '<data-dir>');
    (context.workspaces ?? []).forEach((w, i) => {
      path(w, i === 0 ? '<workspace>' : `<workspace-${i + 1}>`);
    });
    path(context.cwd, '<cwd>');
    path(homedir(), '<home>');
    path(context.env?.HOME, '<home>');
    path(tmpdir(), '<tmp>', 5);
    this.#compile();
  }

  #compile(): void {
    const credentials = literalRule(this.#credentials);
    // Longest first: a session directory inside the data dir inside the home directory.
    const paths = literalRule(this.#paths);
    const ids: TextRule = { re: UUID, replace: (m) => this.#id(m[0]) };
    const some = (...rules: (TextRule | undefined)[]) => rules.filter((r): r is TextRule => r !== undefined);
    this.#set = {
      full: new CachedRules(
        some(...URL_SHAPES, credentials, ...this.#redactRules, ...KEY_SHAPES, paths, this.#user, ids),
      ),
      structural: new CachedRules(some(...URL_SHAPES, credentials, ...KEY_SHAPES, paths, ids)),
    };
  }

  /** One string sanitized as text. */
  text(text: string): string {
    return this.#set.full.apply(text);
  }

  /** A line: when it is JSON, its string values are sanitized and it is serialized again; else as text. */
  line(text: string): string {
    return sanitizeLine(text, this.#set);
  }

  /** A JSON value with every string value (and key) sanitized; the same reference when nothing changed. */
  value<T>(value: T): T {
    return walk(value, this.#set) as T;
  }

  /**
   * A whole cassette (header, then records): every value sanitized, streamed text across its pieces, and the
   * warnings about `redact` patterns that matched nothing or every value in it.
   */
  cassette(records: readonly unknown[]): {
    /** The sanitized header and records, new objects where anything changed. */
    records: unknown[];
    /** One message per `redact` pattern that matched nothing, or in every string value. */
    warnings: string[];
  } {
    const tally = new RedactTally(this.#redactRules.length);
    const out = sanitizeRecords(records, { ...this.#set, tally });
    return { records: out, warnings: redactWarnings(this.#redact, tally) };
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
