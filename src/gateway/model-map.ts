/**
 * Gemini model id → upstream model id (docs/reference/gemini-clients.md#gemini-cli-model-ids,
 * docs/reference/gateway-translation.md#model-routing). Gemini CLI sends many ids per session (classifier,
 * main turn, utility calls), so a map is pattern-based: exact ids first, then `*` globs from the most
 * specific (most literal characters) down, so `*flash-lite*` beats `*flash*`; `'*'` alone pins every request
 * to one model. An id no entry matches is forwarded unchanged.
 */

/** One resolved entry, as `GET /models` reports it. */
export interface ModelRoute {
  /** The pattern or exact id from the map. */
  pattern: string;
  /** The upstream model it goes to. */
  upstream: string;
}

/** A compiled model map. */
export interface ModelMap {
  /** The upstream model for a requested Gemini id (with or without `models/`). */
  resolve(model: string): string;
  /** The entries in match order. */
  readonly routes: readonly ModelRoute[];
}

function globToRegExp(glob: string): RegExp {
  const body = glob
    .split('*')
    .map((s) => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
    .join('.*');
  return new RegExp(`^${body}$`, 'i');
}

/** Strips the `models/` prefix SDKs may keep. */
export function bareModelId(model: string): string {
  return model.startsWith('models/') ? model.slice('models/'.length) : model;
}

/** Compiles a pattern map; throws `TypeError` naming a bad entry. */
export function compileModelMap(map: Record<string, string> | undefined): ModelMap {
  const entries = Object.entries(map ?? {});
  for (const [pattern, upstream] of entries) {
    if (typeof upstream !== 'string' || upstream.length === 0)
      throw new TypeError(`modelMap['${pattern}'] must be a non-empty upstream model id`);
    if (pattern.length === 0) throw new TypeError('modelMap keys must be non-empty');
  }
  const exact = entries.filter(([p]) => !p.includes('*'));
  const globs = entries
    .filter(([p]) => p.includes('*'))
    .sort((a, b) => b[0].replaceAll('*', '').length - a[0].replaceAll('*', '').length);
  const compiled = globs.map(([p, u]) => ({ re: globToRegExp(p), upstream: u }));
  const exactMap = new Map(exact.map(([p, u]) => [bareModelId(p), u]));
  return {
    routes: [...exact, ...globs].map(([pattern, upstream]) => ({ pattern, upstream })),
    resolve(model) {
      const id = bareModelId(model);
      const hit = exactMap.get(id);
      if (hit !== undefined) return hit;
      for (const { re, upstream } of compiled) if (re.test(id)) return upstream;
      return id;
    },
  };
}
