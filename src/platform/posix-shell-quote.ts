/**
 * Quoting for command lines the SDK asks agy to run. Real agy runs a hook `command` as a command line with
 * arguments (a captured plugin hook was `python3 '<path>' hook`), so every path we embed must survive a
 * POSIX shell unchanged, whatever the workspace or data directory is called.
 */

/** Characters no POSIX shell treats specially anywhere in a word. */
const SAFE_POSIX = /^[A-Za-z0-9_@%+=:,./-]+$/;

/**
 * Whether `value` is one word both for a POSIX shell and for a split on whitespace without a shell (agy 1.3.3
 * runs hook commands that way): only characters no shell treats specially, so no space, quote or newline.
 */
export function isPlainWord(value: string): boolean {
  return value !== '' && SAFE_POSIX.test(value);
}

/**
 * One POSIX shell word that expands to exactly `value`. A value made only of safe characters is returned
 * bare, so the same string also works when a command is exec'd without a shell; anything else is wrapped in
 * single quotes (inside which nothing is special, newlines included), each `'` written as `'\''`.
 */
export function shellQuote(value: string): string {
  if (isPlainWord(value)) return value;
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

/** A POSIX command line from words, each quoted with {@link shellQuote}. */
export function shellCommand(words: readonly string[]): string {
  return words.map(shellQuote).join(' ');
}
