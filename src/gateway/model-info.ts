/** The gateway's answers to `models.list` and `models.get`: Gemini model resources describing the routes. */
import type { ModelMap } from './model-map.js';

/** One Gemini `Model` resource for `name`, routed to `upstream` on a `kind` upstream. */
export function modelInfo(
  name: string,
  upstream: string,
  kind: string,
  description?: string,
): Record<string, unknown> {
  return {
    name: `models/${name}`,
    baseModelId: name,
    version: '1',
    displayName: name,
    description: description ?? `Routed by the agy-sdk gateway to ${kind} model ${upstream}`,
    inputTokenLimit: 1_048_576,
    outputTokenLimit: 65_536,
    supportedGenerationMethods: ['generateContent', 'streamGenerateContent', 'countTokens'],
  };
}

/** The `models.list` body: one model per route of `map` (a glob route is listed by its upstream model). */
export function modelList(map: ModelMap, kind: string): { models: Record<string, unknown>[] } {
  const models = map.routes.map((r) =>
    r.pattern.includes('*')
      ? modelInfo(r.upstream, r.upstream, kind, `Gemini ids matching '${r.pattern}' → ${r.upstream}`)
      : modelInfo(r.pattern, r.upstream, kind),
  );
  return { models };
}
