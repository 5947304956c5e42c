/**
 * A request's `contents[]`, normalized into alternating turns
 * (docs/reference/gateway-translation.md#pipeline-and-normalisation): thought parts dropped, tool calls and
 * results paired **by id** (deterministic ids and FIFO-per-name pairing only when the client sent none),
 * consecutive same-role contents merged, and parts no upstream can take refused by path.
 */
import { createHash } from 'node:crypto';
import { invalidArgument } from './errors.js';
import type { GeminiContent, GeminiRequestPart } from './gemini-types.js';
import type { NormalizedPart, NormalizedTurn } from './normalized.js';
import type { ToolNamer } from './tool-names.js';

const SAFE_ID = /^[a-zA-Z0-9_-]{1,128}$/;

function safeId(id: string): string {
  if (SAFE_ID.test(id)) return id;
  return `call_${createHash('sha256').update(id).digest('hex').slice(0, 24)}`;
}

/** Calls without an id get a deterministic one; results without an id take the oldest open call of that name. */
type OpenCalls = Map<string, string[]>;

/** The normalized turns of `contents` (possibly none: the caller refuses an empty request). */
export function normalizeTurns(contents: GeminiContent[], nameFor: ToolNamer): NormalizedTurn[] {
  const turns: NormalizedTurn[] = [];
  const openByName: OpenCalls = new Map();
  for (const [ci, content] of contents.entries()) {
    const role: 'user' | 'model' = content.role === 'model' ? 'model' : 'user';
    const parts: NormalizedPart[] = [];
    let textSignature: string | undefined;
    for (const [pi, part] of content.parts.entries()) {
      if (part.thought === true) continue;
      if (typeof part.text === 'string' && !part.functionCall && !part.functionResponse) {
        if (role === 'model' && textSignature === undefined && part.thoughtSignature)
          textSignature = part.thoughtSignature;
        if (part.text.length > 0) parts.push({ kind: 'text', text: part.text });
        continue;
      }
      const normalized = normalizePart(part, ci, pi, openByName, nameFor);
      if (normalized) parts.push(normalized);
    }
    if (parts.length === 0) continue;
    const previous = turns.at(-1);
    // Consecutive same-role contents are legal in Gemini; upstreams want alternation, so merge them.
    if (previous && previous.role === role) {
      previous.parts.push(...parts);
      previous.textSignature ??= textSignature;
    } else {
      turns.push({ role, parts, textSignature });
    }
  }
  return turns;
}

/**
 * One non-text part: a call (opened for pairing), a result (paired), media or a URL; `undefined` for a part
 * with nothing to send. `ci`/`pi` locate it: for errors, and for the deterministic id of a call without one.
 */
function normalizePart(
  part: GeminiRequestPart,
  ci: number,
  pi: number,
  openByName: OpenCalls,
  nameFor: ToolNamer,
): NormalizedPart | undefined {
  if (part.functionCall) {
    const call = part.functionCall;
    const id = call.id && call.id.length > 0 ? safeId(call.id) : `call_${ci}_${pi}`;
    const queue = openByName.get(call.name) ?? [];
    queue.push(id);
    openByName.set(call.name, queue);
    return {
      kind: 'call',
      id,
      name: nameFor(call.name),
      args: call.args ?? {},
      signature: part.thoughtSignature,
    };
  }
  if (part.functionResponse) {
    const fr = part.functionResponse;
    const queue = openByName.get(fr.name) ?? [];
    let id: string;
    if (fr.id && fr.id.length > 0) {
      id = safeId(fr.id);
      const at = queue.indexOf(id);
      if (at >= 0) queue.splice(at, 1);
    } else {
      id = queue.shift() ?? `call_${ci}_${pi}`;
    }
    const { output, isError } = resultOutput(fr.response);
    const media = (fr.parts ?? []).flatMap((p) => (p.inlineData ? [p.inlineData] : []));
    return { kind: 'result', id, name: nameFor(fr.name), output, isError, media };
  }
  if (part.inlineData)
    return { kind: 'media', mimeType: part.inlineData.mimeType, data: part.inlineData.data };
  if (part.fileData) {
    const uri = part.fileData.fileUri;
    if (!/^https?:\/\//.test(uri))
      throw invalidArgument(
        `contents[${ci}].parts[${pi}].fileData.fileUri`,
        'only http(s) URLs are supported',
      );
    return { kind: 'url', mimeType: part.fileData.mimeType, uri };
  }
  if (part.executableCode !== undefined || part.codeExecutionResult !== undefined)
    throw invalidArgument(`contents[${ci}].parts[${pi}]`, 'code execution parts are not supported');
  return undefined;
}

/** A `functionResponse.response` as text: `{output}` as is, `{error}` as an error, anything else as JSON. */
function resultOutput(response: Record<string, unknown> | null | undefined): {
  output: string;
  isError: boolean;
} {
  if (!response) return { output: '', isError: false };
  const keys = Object.keys(response);
  if (keys.length === 1 && typeof response.output === 'string')
    return { output: response.output, isError: false };
  if (keys.length === 1 && response.error !== undefined) {
    const err = response.error;
    return { output: `Error: ${typeof err === 'string' ? err : JSON.stringify(err)}`, isError: true };
  }
  return { output: JSON.stringify(response), isError: false };
}
