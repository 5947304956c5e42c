/** `agy-sdk show`: a cassette or an OTLP/JSON trace file → one self-contained HTML page. */
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { CassetteError } from '../../errors.js';
import { type Cassette, parseCassette } from './format.js';
import { timelineHtml } from './html.js';
import { isOtlpTrace, otelTimeline } from './otel-timeline.js';
import { buildTimeline } from './timeline.js';

/** The page for a cassette. */
export function cassetteHtml(cassette: Cassette, title = 'agy-sdk run'): string {
  return timelineHtml(buildTimeline(cassette), title);
}

/** The page for a file: a cassette, or an OpenTelemetry trace in OTLP/JSON. */
export function showFile(file: string): string {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new CassetteError(file, 0, 'file', `cannot be read (${(err as Error).message})`);
  }
  const title = `agy-sdk run: ${basename(file)}`;
  if (isOtlpTrace(text)) return timelineHtml(otelTimeline(text, file), title);
  return cassetteHtml(parseCassette(text, file), title);
}
