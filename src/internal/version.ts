/** Three-part versions (`1.3.3`) as agy prints them: parsed where a caller expects one, and compared. */

/** `[major, minor, patch]`. */
export type VersionParts = readonly [number, number, number];

const FORMS = {
  /** The whole text is `x.y.z` (`1.3.3-preview` is not). */
  exact: /^(\d+)\.(\d+)\.(\d+)$/,
  /** The text starts with `x.y.z` (`1.3.3-preview` is 1.3.3). */
  leading: /^(\d+)\.(\d+)\.(\d+)/,
  /** The first `x.y.z` anywhere (`agy version 1.3.1`). */
  anywhere: /(\d+)\.(\d+)\.(\d+)/,
} as const;

/** The version in `text` read as `form` says; null when there is none. */
export function versionParts(text: string, form: keyof typeof FORMS): VersionParts | null {
  const m = FORMS[form].exec(form === 'anywhere' ? text : text.trim());
  return m ? [Number(m[1]), Number(m[2]), Number(m[3])] : null;
}

/** Whether `version` is `min` or newer. */
export function atLeastVersion(version: VersionParts, min: VersionParts): boolean {
  for (let i = 0; i < 3; i++) if (version[i] !== min[i]) return version[i]! > min[i]!;
  return true;
}
