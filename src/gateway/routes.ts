/**
 * The gateway's URL surface (docs/reference/gemini-api.md#endpoints,
 * docs/reference/gateway-checklist.md#http-surface): `POST /{v1,v1beta,v1alpha}/models/{model}:{action}` with
 * the action after the **last** `:` (model ids may contain `/`), `GET /{ver}/models` and
 * `GET /{ver}/models/{model}`. Anything else is `undefined` and becomes a JSON 404.
 */

/** A recognised request. */
export type Route =
  | { kind: 'generate'; model: string; stream: boolean; alt: string | undefined }
  | { kind: 'countTokens'; model: string }
  | { kind: 'listModels' }
  | { kind: 'getModel'; model: string };

const PREFIX = /^\/(v1|v1beta|v1alpha)\/models(?:\/(.+))?$/;

/** Matches a method and URL against the routes. */
export function matchRoute(method: string, url: URL): Route | undefined {
  const match = PREFIX.exec(url.pathname);
  if (!match) return undefined;
  let rest: string | undefined;
  try {
    rest = match[2] === undefined ? undefined : decodeURIComponent(match[2]);
  } catch {
    return undefined;
  }
  if (method === 'GET') {
    if (rest === undefined) return { kind: 'listModels' };
    return rest.includes(':') ? undefined : { kind: 'getModel', model: rest };
  }
  if (method !== 'POST' || rest === undefined) return undefined;
  const colon = rest.lastIndexOf(':');
  if (colon <= 0) return undefined;
  const model = rest.slice(0, colon);
  const action = rest.slice(colon + 1);
  if (action === 'generateContent') return { kind: 'generate', model, stream: false, alt: undefined };
  if (action === 'streamGenerateContent')
    return { kind: 'generate', model, stream: true, alt: url.searchParams.get('alt') ?? undefined };
  if (action === 'countTokens') return { kind: 'countTokens', model };
  return undefined;
}
