// The wire-fact catalogue (docs/reference/wire-facts.json): its known names are the ones the runtime drift
// tracker uses (src/connection/agy/stream-json/drift.ts), every fact names a source that resolves inside the
// repository, and every fact id is unique.
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { KNOWN } from '../../../../src/connection/agy/stream-json/drift.js';

const ROOT = resolve(import.meta.dirname, '../../../..');
const catalogue = JSON.parse(readFileSync(join(ROOT, 'docs/reference/wire-facts.json'), 'utf8')) as {
  format: string;
  version: number;
  known: Record<keyof typeof KNOWN, string[]>;
  facts: { id: string; probe: string; severity: string; what: string; source: string }[];
};

/** The GitHub-style anchors of a markdown file's headings. */
function anchors(file: string): Set<string> {
  const text = readFileSync(join(ROOT, file), 'utf8');
  return new Set(
    [...text.matchAll(/^#+\s+(.+)$/gm)].map((m) =>
      m[1]!
        .toLowerCase()
        .replace(/[^\w\s-]/g, '')
        .replace(/\s/g, '-'),
    ),
  );
}

describe('the wire-fact catalogue', () => {
  it('is versioned and its known names are the drift tracker’s', () => {
    expect(catalogue).toMatchObject({ format: 'agy-sdk-wire-facts', version: 1 });
    for (const [key, set] of Object.entries(KNOWN)) {
      expect([...set].sort(), key).toEqual([...catalogue.known[key as keyof typeof KNOWN]].sort());
    }
  });

  it('every fact has a unique id, a severity and a source that resolves', () => {
    const ids = catalogue.facts.map((f) => f.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const fact of catalogue.facts) {
      expect(['break', 'drift']).toContain(fact.severity);
      const [file, anchor] = fact.source.split('#');
      expect(existsSync(join(ROOT, file!)), fact.source).toBe(true);
      if (anchor) expect(anchors(file!).has(anchor), fact.source).toBe(true);
    }
  });
});
