/**
 * Where upstream translators put what they decoded, in Gemini terms. The streaming sink turns every event into
 * one SSE chunk at once (text deltas are never held back); the unary sink merges them into one
 * `GenerateContentResponse`. Exactly one terminal call (`finish` or `fail`) is honoured; later ones are ignored.
 */
import type { GatewayError } from './errors.js';
import type { GeminiChunk, GeminiPart, GroundingMetadata, UsageMetadata } from './gemini-types.js';
import { type SseWriter, sseJson } from './sse-writer.js';

/** A whole function call as the client will see it. */
export interface EmittedCall {
  /** The upstream call id (round-trips through the client's history). */
  id: string;
  /** The client's function name. */
  name: string;
  /** Parsed arguments. */
  args: Record<string, unknown>;
}

/** The translator → client side of a request. */
export interface GeminiSink {
  /** Upstream model and response id, for `modelVersion` / `responseId`. */
  meta(model: string | undefined, responseId: string | undefined): void;
  /** A text delta (non-empty), optionally carrying a signature. */
  text(text: string, signature?: string): void;
  /** A thought-summary delta. */
  thought(text: string): void;
  /** A complete function call. */
  functionCall(call: EmittedCall, signature?: string): void;
  /** The final chunk: finish reason and usage (both always present). */
  finish(reason: string, usage: UsageMetadata, grounding?: GroundingMetadata): void;
  /** A failure: before anything was sent it becomes an HTTP error; after, an in-stream error event. */
  fail(error: GatewayError): void;
  /** Whether `finish` or `fail` happened. */
  readonly done: boolean;
  /** Whether it ended with `fail`. */
  readonly failed: boolean;
}

/**
 * The `modelVersion` / `responseId` both sinks stamp on their chunks. A member of each sink rather than a base
 * class, so that each sink's state stays `#private`.
 */
class ChunkMeta {
  /** The upstream model, once known. */
  model: string | undefined;
  /** The upstream response id, once known. */
  responseId: string | undefined;

  /** Takes the non-empty values; whether either changed. */
  set(model: string | undefined, responseId: string | undefined): boolean {
    let changed = false;
    if (model && model !== this.model) {
      this.model = model;
      changed = true;
    }
    if (responseId && responseId !== this.responseId) {
      this.responseId = responseId;
      changed = true;
    }
    return changed;
  }

  /** One chunk with `parts` and the meta known so far. */
  wrap(parts: GeminiPart[], extra?: Partial<GeminiChunk['candidates'][number]>): GeminiChunk {
    const chunk: GeminiChunk = { candidates: [{ content: { role: 'model', parts }, ...extra, index: 0 }] };
    if (this.model !== undefined) chunk.modelVersion = this.model;
    if (this.responseId !== undefined) chunk.responseId = this.responseId;
    return chunk;
  }
}

function callPart(call: EmittedCall, signature: string | undefined): GeminiPart {
  const part: GeminiPart = { functionCall: { id: call.id, name: call.name, args: call.args } };
  if (signature) part.thoughtSignature = signature;
  return part;
}

/** A streamed chunk's JSON up to its one part: what `wrap([part])` serializes to before the part. */
const PART_HEAD = '{"candidates":[{"content":{"role":"model","parts":[';

/** Writes each event as one SSE chunk. */
export class StreamingSink implements GeminiSink {
  done = false;
  failed = false;
  readonly #meta = new ChunkMeta();
  /** The JSON after the part (`modelVersion`, `responseId`), kept until `meta` changes either. */
  #tail: string | undefined;
  readonly #writer: SseWriter;

  constructor(writer: SseWriter) {
    this.#writer = writer;
  }

  meta(model: string | undefined, responseId: string | undefined): void {
    if (this.#meta.set(model, responseId)) this.#tail = undefined;
  }

  /**
   * Text and thought deltas, one per upstream event, are serialized by hand: only the delta goes through
   * `JSON.stringify`, the rest is the constant around it, byte for byte what `frameSse(meta.wrap([part]))`
   * writes (a property test holds the two equal). A profile of the xAI recording had the whole-chunk
   * stringify at about a quarter of the translation's CPU.
   */
  #writePart(partJson: string): void {
    if (this.#tail === undefined) {
      let tail = ']},"index":0}]';
      if (this.#meta.model !== undefined) tail += `,"modelVersion":${sseJson(this.#meta.model)}`;
      if (this.#meta.responseId !== undefined) tail += `,"responseId":${sseJson(this.#meta.responseId)}`;
      this.#tail = `${tail}}`;
    }
    this.#writer.writeJson(`${PART_HEAD}${partJson}${this.#tail}`);
  }

  text(text: string, signature?: string): void {
    if (this.done || text.length === 0) return;
    this.#writePart(
      signature
        ? `{"text":${sseJson(text)},"thoughtSignature":${sseJson(signature)}}`
        : `{"text":${sseJson(text)}}`,
    );
  }

  thought(text: string): void {
    if (this.done || text.length === 0) return;
    this.#writePart(`{"text":${sseJson(text)},"thought":true}`);
  }

  functionCall(call: EmittedCall, signature?: string): void {
    if (this.done) return;
    this.#writer.write(this.#meta.wrap([callPart(call, signature)]));
  }

  finish(reason: string, usage: UsageMetadata, grounding?: GroundingMetadata): void {
    if (this.done) return;
    this.done = true;
    const chunk = this.#meta.wrap(
      [],
      grounding ? { finishReason: reason, groundingMetadata: grounding } : { finishReason: reason },
    );
    chunk.usageMetadata = usage;
    this.#writer.write(chunk);
    this.#writer.end();
  }

  /**
   * The error is the last thing the client sees: before the `200` its own HTTP status, after it one in-stream
   * error event and the end of the body, never a finish reason or another event after it, whatever the upstream
   * kind and whether text was streamed (docs/reference/gateway-translation.md#errors-upstream-to-gemini). A
   * finish after the error would read as a clean end of a turn that failed.
   */
  fail(error: GatewayError): void {
    if (this.done) return;
    this.done = true;
    this.failed = true;
    this.#writer.fail(error);
  }
}

/** Collects everything into one response; resolves when the upstream is done. */
export class UnarySink implements GeminiSink {
  done = false;
  failed = false;
  readonly #meta = new ChunkMeta();
  readonly #parts: GeminiPart[] = [];
  #settle: ((value: GeminiChunk) => void) | undefined;
  #reject: ((error: GatewayError) => void) | undefined;
  /** Resolves with the merged response or rejects with the failure. */
  readonly result: Promise<GeminiChunk>;

  constructor() {
    this.result = new Promise<GeminiChunk>((resolve, reject) => {
      this.#settle = resolve;
      this.#reject = reject;
    });
    // Awaited only once the upstream is done; an earlier failure must not count as an unhandled rejection.
    this.result.catch(() => {});
  }

  meta(model: string | undefined, responseId: string | undefined): void {
    this.#meta.set(model, responseId);
  }

  text(text: string, signature?: string): void {
    if (this.done || text.length === 0) return;
    const last = this.#parts.at(-1);
    if (last && typeof last.text === 'string' && !last.thought) last.text += text;
    else this.#parts.push(signature ? { text, thoughtSignature: signature } : { text });
  }

  thought(text: string): void {
    if (this.done || text.length === 0) return;
    const last = this.#parts.at(-1);
    if (last?.thought) last.text += text;
    else this.#parts.push({ text, thought: true });
  }

  functionCall(call: EmittedCall, signature?: string): void {
    if (!this.done) this.#parts.push(callPart(call, signature));
  }

  finish(reason: string, usage: UsageMetadata, grounding?: GroundingMetadata): void {
    if (this.done) return;
    this.done = true;
    const chunk = this.#meta.wrap(
      this.#parts,
      grounding ? { finishReason: reason, groundingMetadata: grounding } : { finishReason: reason },
    );
    chunk.usageMetadata = usage;
    this.#settle?.(chunk);
  }

  fail(error: GatewayError): void {
    if (this.done) return;
    this.done = true;
    this.failed = true;
    this.#reject?.(error);
  }
}
