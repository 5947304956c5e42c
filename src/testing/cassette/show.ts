/** `agy-sdk show`: a cassette or an OTLP/JSON trace file → one self-contained HTML page. */
import { basename } from 'node:path';
import { type Cassette, parseCassette } from '../../cassette/format.js';
import { readInput } from '../../cassette/limits.js';
import { timelineHtml } from './html.js';
import { isOtlpTrace, otelTimeline } from './otel-timeline.js';
import { buildTimeline } from './timeline.js';

/** The page for a cassette. */
export function cassetteHtml(cassette: Cassette, title = 'agy-sdk run'): string {
  return timelineHtml(buildTimeline(cassette), title);
}

/**
 * The page for a file: a cassette, or an OpenTelemetry trace in OTLP/JSON. The file is untrusted: one past
 * the input limits or malformed is a `CassetteError` naming the file, the line or span, and the field.
 */
export function showFile(file: string): string {
  const text = readInput(file);
  const title = `agy-sdk run: ${basename(file)}`;
  if (isOtlpTrace(text)) return timelineHtml(otelTimeline(text, file), title);
  return cassetteHtml(parseCassette(text, file), title);
}
