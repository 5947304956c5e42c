/**
 * What the sanitizer looks for: the credential values a session was given (secret-named environment values,
 * MCP servers' `env` and `headers`, the gateway's keys), the parts of them that travel alone (a bearer token
 * without its scheme, a URL's password or secret query value), the forms each takes when written inside text
 * (JSON-escaped, with Go's `\u0026` escapes, URL-encoded), and the secret shapes found in any text.
 */
import type { McpServerConfig } from '../connection/mcp-server-config.js';
import { rule, type TextRule } from './sanitize-text.js';

/** Environment and header names whose values are secrets. */
export const SECRET_NAME = /KEY|TOKEN|SECRET|PASS|CREDENTIAL|AUTH|COOKIE|SESSION_MARK|PRIVATE|SIGNATURE/i;

/** Headers that carry no credential; every other header value of an MCP server is treated as one. */
const PUBLIC_HEADERS = new Set([
  'accept',
  'accept-encoding',
  'accept-language',
  'cache-control',
  'connection',
  'content-type',
  'mcp-protocol-version',
  'user-agent',
]);

/** Shorter values are not searched for as literals: they would match ordinary words. */
export const MIN_SECRET_LENGTH = 8;

/**
 * Credentials in URLs, replaced in any text whatever variable held the URL: the user part (`user:pass@`,
 * `token@`) and secret-named query values. No replacement holds a quote or a backslash, so JSON text inside
 * a string value stays valid.
 */
export const URL_SHAPES: readonly TextRule[] = [
  // Bounded repeats keep the scan linear in the text's length (a long run of dots or `?key` is model output).
  rule(/\b([a-z][a-z0-9+.-]{0,31}:\/\/)[^\s/?#@"'<>\\]{1,512}@/gi, '$1<credentials>@'),
  rule(
    /([?&][\w.-]{0,64}(?:key|token|secret|password|passwd|auth|sig|signature|credential)[\w.-]{0,64}=)[^&#\s"'<>\\]+/gi,
    '$1<secret>',
  ),
];

/** Known key shapes: Google API keys and OAuth tokens, OpenAI/Anthropic keys, GitHub, Slack, AWS, bearer tokens. */
export const KEY_SHAPES: readonly TextRule[] = [
  rule(/AIza[0-9A-Za-z_-]{35}/g, '<api-key>'),
  rule(/ya29\.[0-9A-Za-z_-]{20,}/g, '<oauth-token>'),
  rule(/\bsk-(?:ant-|proj-)?[0-9A-Za-z_-]{16,}/g, '<api-key>'),
  rule(/\bgh[pousr]_[0-9A-Za-z]{30,}/g, '<api-key>'),
  rule(/\bxox[abprs]-[0-9A-Za-z-]{10,}/g, '<api-key>'),
  rule(/\bAKIA[0-9A-Z]{16}\b/g, '<api-key>'),
  rule(/([Bb]earer\s+)[0-9A-Za-z._~+/=-]{8,}/g, '$1<bearer>'),
];

/** A credential to find, and what replaces it. */
export interface Credential {
  /** The value as the session was given it (or a part of it that travels alone). */
  readonly value: string;
  /** Its placeholder, `<secret:NAME>`. */
  readonly placeholder: string;
}

/** `<secret:NAME>`, with only the characters the replayer's placeholder matcher accepts. */
export function secretPlaceholder(name: string): string {
  return `<secret:${name.replace(/[^A-Za-z0-9_-]/g, '_') || 'value'}>`;
}

function decoded(s: string): string {
  try {
    return decodeURIComponent(s.replace(/\+/g, ' '));
  } catch {
    return s;
  }
}

/** The secret parts of a URL anywhere in `value`: the user part's password, secret-named query values. */
function urlSecrets(value: string): string[] {
  const out: string[] = [];
  for (const m of value.matchAll(/[a-z][a-z0-9+.-]*:\/\/([^\s/?#@]+)@/gi)) {
    const userinfo = m[1] ?? '';
    const colon = userinfo.indexOf(':');
    // `https://TOKEN@host` carries the token as the user name.
    const secret = colon === -1 ? userinfo : userinfo.slice(colon + 1);
    out.push(secret, decoded(secret));
  }
  for (const m of value.matchAll(/[?&]([^=&#\s]+)=([^&#\s]+)/g)) {
    if (SECRET_NAME.test(m[1] ?? '') || /^(?:sig|code)$/i.test(m[1] ?? ''))
      out.push(m[2] ?? '', decoded(m[2] ?? ''));
  }
  return out;
}

/** The parts of a credential that may appear alone: the token after an auth scheme, Basic's password. */
function schemeSecrets(value: string): string[] {
  const m = /^(Bearer|Basic|Token|Bot|Digest|ApiKey)\s+(\S+)$/i.exec(value.trim());
  if (!m?.[2]) return [];
  const out = [m[2]];
  if (m[1]?.toLowerCase() === 'basic') {
    const pair = Buffer.from(m[2], 'base64').toString('utf8');
    if (pair.includes(':')) out.push(pair, pair.slice(pair.indexOf(':') + 1));
  }
  return out;
}

function credentialsOf(value: string, placeholder: string, whole: boolean): Credential[] {
  const parts = whole ? [value, ...schemeSecrets(value), ...urlSecrets(value)] : urlSecrets(value);
  return parts.filter((v) => v.length >= MIN_SECRET_LENGTH).map((v) => ({ value: v, placeholder }));
}

/** Secret-named values of an environment, whole, and the URL secrets of every value, whatever its name. */
export function envCredentials(env: Record<string, string | undefined> | undefined): Credential[] {
  const out: Credential[] = [];
  for (const [name, value] of Object.entries(env ?? {}))
    if (typeof value === 'string')
      out.push(...credentialsOf(value, secretPlaceholder(name), SECRET_NAME.test(name)));
  return out;
}

/** The credentials of the user's MCP servers: their `env` as above, every non-public header, their URL's secrets. */
export function mcpCredentials(servers: Record<string, McpServerConfig> | undefined): Credential[] {
  const out: Credential[] = [];
  for (const server of Object.values(servers ?? {})) {
    if (typeof server !== 'object' || server === null) continue;
    if ('env' in server) out.push(...envCredentials(server.env));
    if ('headers' in server)
      for (const [name, value] of Object.entries(server.headers ?? {}))
        if (typeof value === 'string' && !PUBLIC_HEADERS.has(name.toLowerCase()))
          out.push(...credentialsOf(value, secretPlaceholder(name), true));
    if ('url' in server && typeof server.url === 'string')
      out.push(...credentialsOf(server.url, secretPlaceholder('url'), false));
  }
  return out;
}

/** Named credentials, every value secret whatever its name (the gateway's upstream key and headers). */
export function namedCredentials(named: Record<string, string | undefined> | undefined): Credential[] {
  const out: Credential[] = [];
  for (const [name, value] of Object.entries(named ?? {}))
    if (typeof value === 'string') out.push(...credentialsOf(value, secretPlaceholder(name), true));
  return out;
}

const GO_ESCAPES: Record<string, string> = { '<': '\\u003c', '>': '\\u003e', '&': '\\u0026' };

/** JSON text with `<`, `>` and `&` escaped as Go's encoder (and so agy) writes them. */
export function goEscape(json: string): string {
  return json.replace(/[<>&]/g, (c) => GO_ESCAPES[c] ?? c);
}

/**
 * The forms a credential takes inside a decoded string: itself, JSON-escaped once and twice (JSON text inside
 * the string), JSON-escaped the way Go writes it (`\u0026` for `&`), URL-encoded (a query or form value).
 */
export function credentialForms(value: string): string[] {
  const once = JSON.stringify(value).slice(1, -1);
  const twice = JSON.stringify(once).slice(1, -1);
  return [
    ...new Set([
      value,
      once,
      twice,
      goEscape(once),
      encodeURIComponent(value),
      encodeURIComponent(value).replace(/%20/g, '+'),
    ]),
  ];
}

/** The forms of a path inside a decoded string: itself, JSON-escaped once and twice, in a `file://` URL. */
export function pathForms(value: string): string[] {
  const once = JSON.stringify(value).slice(1, -1);
  return [...new Set([value, once, JSON.stringify(once).slice(1, -1), encodeURI(value)])];
}
