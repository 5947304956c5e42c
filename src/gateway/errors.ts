/**
 * Google's error shape (`google.rpc.Status` as JSON) and the mapping from upstream failures to it. The status
 * codes decide whether Gemini CLI / agy retry (docs/reference/gemini-api.md#who-retries-what,
 * docs/reference/gateway-translation.md#errors-upstream-to-gemini): 429 and 5xx are retried, 400/401/403 are
 * not, 404 is terminal.
 */

/** One `details[]` entry of a Google error (`RetryInfo`, `QuotaFailure`, `BadRequest`, …). */
export interface GoogleErrorDetail {
  /** The detail type URL, e.g. `type.googleapis.com/google.rpc.RetryInfo`. */
  '@type': string;
  /** The detail's own fields. */
  [key: string]: unknown;
}

/** The JSON body of every error the gateway returns: `{"error":{code,message,status,details?}}`. */
export interface GoogleErrorBody {
  /** The error itself. */
  error: {
    /** HTTP status code. */
    code: number;
    /** Human-readable message (never contains a key or token). */
    message: string;
    /** `google.rpc.Code` name, e.g. `INVALID_ARGUMENT`. */
    status: string;
    /** Optional typed details. */
    details?: GoogleErrorDetail[];
  };
}

const STATUS_NAMES: Record<number, string> = {
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  429: 'RESOURCE_EXHAUSTED',
  499: 'CANCELLED',
  500: 'INTERNAL',
  501: 'UNIMPLEMENTED',
  503: 'UNAVAILABLE',
  504: 'DEADLINE_EXCEEDED',
};

/** The `google.rpc.Code` name of an HTTP status (`429` → `RESOURCE_EXHAUSTED`), or undefined when none is set. */
export function googleStatusName(code: number): string | undefined {
  return Object.hasOwn(STATUS_NAMES, code) ? STATUS_NAMES[code] : undefined;
}

/** A failure the gateway reports to its client in Google's shape. */
export class GatewayError extends Error {
  /** HTTP status sent to the client. */
  readonly code: number;
  /** `google.rpc.Code` name. */
  readonly status: string;
  /** Typed details (retry info, quota failure). */
  readonly details: GoogleErrorDetail[] | undefined;

  constructor(code: number, message: string, details?: GoogleErrorDetail[], status?: string) {
    super(message);
    this.name = 'GatewayError';
    this.code = code;
    this.status = status ?? googleStatusName(code) ?? (code >= 500 ? 'INTERNAL' : 'INVALID_ARGUMENT');
    this.details = details;
  }

  /** The JSON body for this error. */
  toBody(): GoogleErrorBody {
    const error: GoogleErrorBody['error'] = { code: this.code, message: this.message, status: this.status };
    if (this.details && this.details.length > 0) error.details = this.details;
    return { error };
  }
}

/** A 400 for a malformed client request, naming the offending field. */
export function invalidArgument(field: string, problem: string): GatewayError {
  return new GatewayError(400, `Invalid value at '${field}': ${problem}`, [
    {
      '@type': 'type.googleapis.com/google.rpc.BadRequest',
      fieldViolations: [{ field, description: problem }],
    },
  ]);
}

/**
 * Maps an upstream HTTP status to the Gemini status the client should see
 * (docs/reference/gateway-translation.md#errors-upstream-to-gemini).
 */
export function mapUpstreamStatus(status: number): number {
  if (status === 401 || status === 403 || status === 404 || status === 429) return status;
  if (status === 408 || status === 504) return 504;
  if (status === 502 || status === 503 || status === 529) return 503;
  if (status >= 500) return 500;
  return 400;
}

function retryDelaySeconds(headers: Record<string, string | string[] | undefined>): number | undefined {
  const ms = first(headers['retry-after-ms']);
  if (ms !== undefined && Number.isFinite(Number(ms))) return Number(ms) / 1000;
  const after = first(headers['retry-after']);
  if (after === undefined) return undefined;
  const seconds = Number(after);
  if (Number.isFinite(seconds)) return seconds;
  const date = Date.parse(after);
  return Number.isNaN(date) ? undefined : Math.max(0, (date - Date.now()) / 1000);
}

function first(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/** Pulls a message and a type/code out of the error bodies OpenAI and Anthropic send. */
export function upstreamErrorInfo(body: unknown): { message: string | undefined; type: string | undefined } {
  if (typeof body !== 'object' || body === null) return { message: undefined, type: undefined };
  const inner = (body as { error?: unknown }).error;
  const err =
    typeof inner === 'object' && inner !== null
      ? (inner as Record<string, unknown>)
      : (body as Record<string, unknown>);
  const message = typeof err.message === 'string' ? err.message : undefined;
  const type = typeof err.code === 'string' ? err.code : typeof err.type === 'string' ? err.type : undefined;
  return { message, type };
}

const OUT_OF_CREDIT = /insufficient_quota|billing|credit balance/i;
// Vendors echo (partly masked) keys in auth errors ("Incorrect API key provided: sk-proj-ab***xy").
const KEY_LIKE = /\b(?:sk|sk-ant|sk-proj|key)-[A-Za-z0-9_*.-]{4,}/g;

/** Removes the upstream key, and anything shaped like a key, from text bound for the client or the log. */
export function redact(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) if (secret.length >= 4) out = out.split(secret).join('[redacted]');
  return out.replace(KEY_LIKE, '[redacted]');
}

/** Builds the client-facing error for an upstream HTTP failure. */
export function fromUpstreamResponse(
  status: number,
  bodyText: string,
  headers: Record<string, string | string[] | undefined>,
  secrets: readonly string[] = [],
): GatewayError {
  let parsed: unknown;
  try {
    parsed = JSON.parse(bodyText);
  } catch {
    parsed = undefined;
  }
  const info = upstreamErrorInfo(parsed);
  const text = redact(info.message ?? (bodyText.trim().slice(0, 500) || `HTTP ${status}`), secrets);
  const message = `upstream ${status}${info.type ? ` ${info.type}` : ''}: ${text}`;
  const code = mapUpstreamStatus(status);
  const details: GoogleErrorDetail[] = [];
  if (code === 429) {
    if (OUT_OF_CREDIT.test(`${info.type ?? ''} ${text}`)) {
      // A quota that resets daily makes Gemini CLI stop retrying instead of hammering an empty account.
      details.push({
        '@type': 'type.googleapis.com/google.rpc.QuotaFailure',
        violations: [{ quotaId: 'UpstreamCreditPerDay', description: text }],
      });
    }
    const delay = retryDelaySeconds(headers);
    if (delay !== undefined) {
      details.push({ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: `${delay}s` });
    }
  }
  return new GatewayError(code, message, details);
}

/** Maps an in-stream upstream error type (Anthropic `error.type`, OpenAI `error.code`) to a Gemini error. */
export function fromUpstreamStreamError(type: string | undefined, message: string | undefined): GatewayError {
  const text = redact(`upstream stream error${type ? ` ${type}` : ''}: ${message ?? 'unknown error'}`, []);
  const t = (type ?? '').toLowerCase();
  if (t.includes('overloaded') || t.includes('unavailable')) return new GatewayError(503, text);
  if (t.includes('rate_limit') || t.includes('quota')) return new GatewayError(429, text);
  if (t.includes('invalid_request') || t.includes('invalid_prompt') || t.includes('context_length'))
    return new GatewayError(400, text);
  if (t.includes('authentication')) return new GatewayError(401, text);
  if (t.includes('permission')) return new GatewayError(403, text);
  if (t.includes('not_found')) return new GatewayError(404, text);
  return new GatewayError(500, text);
}

/** The upstream closed or broke its stream before saying it was done: retryable. */
export function prematureEnd(reason: string): GatewayError {
  return new GatewayError(503, `upstream stream ended prematurely: ${reason}`);
}
