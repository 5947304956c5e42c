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
 * (docs/reference/gateway-translation.md#errors-upstream-to-gemini): 4xx stays 4xx (clients do not retry what
 * cannot succeed), 402 (out of credit) becomes a 429 the client does not retry either, 408/504 a deadline,
 * 502/503/529 unavailable, other 5xx internal.
 */
export function mapUpstreamStatus(status: number): number {
  if (status === 401 || status === 403 || status === 404 || status === 429) return status;
  if (status === 402) return 429;
  if (status === 408 || status === 504) return 504;
  if (status === 502 || status === 503 || status === 529) return 503;
  if (status >= 500) return 500;
  return 400;
}

/** What the client is told for one upstream error signal: an HTTP status, and whether it is an empty account. */
interface ErrorRow {
  /** The HTTP status the client gets. */
  code: number;
  /** Out of credit: the 429 carries a daily `QuotaFailure`, so Gemini CLI stops instead of retrying. */
  credit?: true;
}

/**
 * Upstream error `type` values (docs/reference/gateway-translation.md#errors-upstream-to-gemini lists the
 * source of each row): Anthropic's error types, OpenAI's `type`s, Groq's and OpenRouter's (OpenAI's shape).
 */
const BY_TYPE: Record<string, ErrorRow> = {
  invalid_request_error: { code: 400 },
  request_too_large: { code: 400 },
  invalid_prompt: { code: 400 },
  authentication_error: { code: 401 },
  permission_error: { code: 403 },
  not_found_error: { code: 404 },
  rate_limit_error: { code: 429 },
  tokens: { code: 429 },
  requests: { code: 429 },
  insufficient_quota: { code: 429, credit: true },
  billing_error: { code: 429, credit: true },
  timeout_error: { code: 504 },
  overloaded_error: { code: 503 },
  api_error: { code: 500 },
  server_error: { code: 500 },
};

/** Upstream error `code` strings, read after the type (same sources). */
const BY_CODE: Record<string, ErrorRow> = {
  rate_limit_exceeded: { code: 429 },
  insufficient_quota: { code: 429, credit: true },
  context_length_exceeded: { code: 400 },
  string_above_max_length: { code: 400 },
  invalid_prompt: { code: 400 },
  invalid_value: { code: 400 },
  tool_use_failed: { code: 400 },
  json_validate_failed: { code: 400 },
  invalid_api_key: { code: 401 },
  model_not_found: { code: 404 },
  overloaded_error: { code: 503 },
  server_is_overloaded: { code: 503 },
  slow_down: { code: 503 },
  server_error: { code: 500 },
};

/** The signals an upstream error body carries, read from OpenAI, Anthropic, Groq and OpenRouter shapes. */
export interface UpstreamErrorInfo {
  /** `error.message`. */
  message: string | undefined;
  /** `error.type` (Anthropic, OpenAI). */
  type: string | undefined;
  /** `error.code` when it is a string (OpenAI, Groq). */
  code: string | undefined;
  /** An explicit HTTP status in the body: `status_code` (Groq), a numeric `code` (OpenRouter), `status`. */
  status: number | undefined;
}

function httpStatus(value: unknown): number | undefined {
  const n = typeof value === 'string' && /^\d{3}$/.test(value) ? Number(value) : value;
  return typeof n === 'number' && Number.isInteger(n) && n >= 400 && n <= 599 ? n : undefined;
}

/** Pulls message, type, code and any explicit status out of an upstream error body (top level or `error`). */
export function upstreamErrorInfo(body: unknown): UpstreamErrorInfo {
  if (typeof body !== 'object' || body === null)
    return { message: undefined, type: undefined, code: undefined, status: undefined };
  const inner = (body as { error?: unknown }).error;
  const err =
    typeof inner === 'object' && inner !== null
      ? (inner as Record<string, unknown>)
      : (body as Record<string, unknown>);
  const str = (v: unknown): string | undefined => (typeof v === 'string' && v.length > 0 ? v : undefined);
  const type = str(err.type);
  return {
    message: str(err.message) ?? (typeof inner === 'string' ? inner : undefined),
    // A top-level `{"type":"error", …}` wrapper names the event, not the error.
    type: type === 'error' ? undefined : type,
    code: typeof err.code === 'string' && httpStatus(err.code) === undefined ? str(err.code) : undefined,
    status: httpStatus(err.status_code) ?? httpStatus(err.code) ?? httpStatus(err.status),
  };
}

/**
 * The one upstream → Gemini error table, by every signal in order: an explicit HTTP status in the body, then
 * the response status (an HTTP failure), then `type`, then `code`; nothing known is a 500.
 */
export function classifyUpstreamError(info: UpstreamErrorInfo, responseStatus?: number): ErrorRow {
  const text = `${info.type ?? ''} ${info.code ?? ''} ${info.message ?? ''}`;
  const credit = OUT_OF_CREDIT.test(text);
  const explicit = info.status ?? responseStatus;
  if (explicit !== undefined) {
    const code = mapUpstreamStatus(explicit);
    return code === 429 && (credit || explicit === 402) ? { code, credit: true } : { code };
  }
  const row =
    (info.type !== undefined ? BY_TYPE[info.type.toLowerCase()] : undefined) ??
    (info.code !== undefined ? BY_CODE[info.code.toLowerCase()] : undefined);
  if (row) return row.code === 429 && credit ? { code: 429, credit: true } : row;
  return { code: 500 };
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

const OUT_OF_CREDIT = /insufficient_quota|billing|credit balance|insufficient credits/i;
// Vendors echo (partly masked) keys in auth errors ("Incorrect API key provided: sk-proj-ab***xy").
const KEY_LIKE = /\b(?:sk|sk-ant|sk-proj|key)-[A-Za-z0-9_*.-]{4,}/g;

/** Removes the upstream key, and anything shaped like a key, from text bound for the client or the log. */
export function redact(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) if (secret.length >= 4) out = out.split(secret).join('[redacted]');
  return out.replace(KEY_LIKE, '[redacted]');
}

/** `error` with every secret (the upstream key, each configured header value) removed from its text. */
export function redactError(error: GatewayError, secrets: readonly string[]): GatewayError {
  const details = error.details?.map(
    (d) => JSON.parse(redact(JSON.stringify(d), secrets)) as GoogleErrorDetail,
  );
  return new GatewayError(error.code, redact(error.message, secrets), details, error.status);
}

function build(
  row: ErrorRow,
  message: string,
  headers: Record<string, string | string[] | undefined>,
): GatewayError {
  const details: GoogleErrorDetail[] = [];
  if (row.code === 429) {
    if (row.credit) {
      // A quota that resets daily makes Gemini CLI stop retrying instead of hammering an empty account.
      details.push({
        '@type': 'type.googleapis.com/google.rpc.QuotaFailure',
        violations: [{ quotaId: 'UpstreamCreditPerDay', description: message }],
      });
    }
    const delay = retryDelaySeconds(headers);
    if (delay !== undefined) {
      details.push({ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: `${delay}s` });
    }
  }
  return new GatewayError(row.code, message, details);
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
  const label = info.code ?? info.type;
  const text = redact(info.message ?? (bodyText.trim().slice(0, 500) || `HTTP ${status}`), secrets);
  const row = classifyUpstreamError(info.status !== undefined ? info : { ...info, status }, status);
  return build(row, `upstream ${status}${label ? ` ${label}` : ''}: ${text}`, headers);
}

/**
 * Maps an error that arrived inside a 200 stream (a Chat chunk's `error`, Groq's `event: error`, Anthropic's
 * `error` event, Responses `error` / `response.failed`) to a Gemini error, through the same table.
 */
export function fromUpstreamStreamError(body: unknown, secrets: readonly string[] = []): GatewayError {
  const info = upstreamErrorInfo(body);
  const label = [info.type, info.code].filter((v) => v !== undefined).join(' ');
  const text = redact(
    `upstream stream error${label ? ` ${label}` : ''}${info.status ? ` (${info.status})` : ''}: ${info.message ?? 'unknown error'}`,
    secrets,
  );
  return build(classifyUpstreamError(info), text, {});
}

/** The upstream closed or broke its stream before saying it was done: retryable. */
export function prematureEnd(reason: string): GatewayError {
  return new GatewayError(503, `upstream stream ended prematurely: ${reason}`);
}
