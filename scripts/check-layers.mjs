#!/usr/bin/env node
// The layer rules of docs/architecture.md, checked on the import graph of src/ (type-only imports included):
// no import cycles at all, and each rule below names folders a layer must never import. Also: class members are
// private as JS `#private`, never through TS's `private`/`protected` modifiers. Exits 1 on a breach.
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const src = path.join(root, 'src');

/** The seam and the infrastructure both backends share: none of them may depend on a backend. */
const BACKEND_NEUTRAL = [
  'connection/host.ts',
  'connection/connection.ts',
  'connection/wire-tap.ts',
  'connection/mcp-server-config.ts',
  'connection/tool-server/',
  'connection/process/',
];

/** `from` (a path prefix under src/) may import only what `allow` admits. */
const RULES = [
  {
    from: 'model/',
    allow: (to) => to.startsWith('model/') || to.startsWith('internal/') || to === 'errors.ts',
    why: 'model/ imports nothing of ours but errors and internal/',
  },
  {
    from: 'protocol/',
    allow: (to) => to.startsWith('protocol/') || to === 'errors.ts',
    why: 'protocol/ holds wire shapes only',
  },
  { from: 'errors.ts', allow: () => false, why: 'errors.ts imports nothing of ours' },
  {
    from: 'connection/',
    allow: (to) => !to.startsWith('conversation/') && !to.startsWith('agent/'),
    why: 'connection/ never imports conversation/ or agent/',
  },
  // The two backends are peers: what both use lives beside them (tool-server/, process/, the seam's files).
  {
    from: 'connection/acp/',
    allow: (to) => !to.startsWith('connection/agy/'),
    why: 'the ACP backend never imports the agy backend (shared code lives in connection/tool-server/ or connection/process/)',
  },
  {
    from: 'connection/agy/',
    allow: (to) => !to.startsWith('connection/acp/'),
    why: 'the agy backend never imports the ACP backend (shared code lives in connection/tool-server/ or connection/process/)',
  },
  ...BACKEND_NEUTRAL.map((from) => ({
    from,
    allow: (to) => !to.startsWith('connection/agy/') && !to.startsWith('connection/acp/'),
    why: `${from} is backend-neutral: it imports neither connection/agy/ nor connection/acp/`,
  })),
  {
    from: 'agent/',
    allow: (to) => !/^connection\/agy\/(session|stream-json|process)\//.test(to),
    why: 'the Agent reaches the agy backend through connection/agy/index.ts only',
  },
  {
    from: 'agent/',
    allow: (to) => to !== 'protocol/hook-wire.ts',
    why: 'agy hook payloads are translated inside the agy backend (connection/agy/hook-handlers.ts)',
  },
  {
    from: 'conversation/',
    allow: (to) => to !== 'protocol/hook-wire.ts',
    why: 'agy hook payloads are translated inside the agy backend (connection/agy/hook-handlers.ts)',
  },
];

function walk(dir) {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return walk(p);
    return e.name.endsWith('.ts') ? [p] : [];
  });
}

const IMPORT =
  /(?:^|[\s;])(?:import|export)\s[^'"]*?from\s*['"](\.{1,2}\/[^'"]+)['"]|import\(\s*['"](\.{1,2}\/[^'"]+)['"]\s*\)/g;
const graph = new Map();
const bareZod = [];
for (const file of walk(src)) {
  const rel = path.relative(src, file);
  const text = fs.readFileSync(file, 'utf8');
  const deps = new Set();
  // zod is imported as `zod/v4` only: that path is zod 4 both in zod 4 and in zod 3.25 (the peer range).
  if (/from\s*['"]zod['"]/.test(text)) bareZod.push(rel);
  for (const m of text.matchAll(IMPORT)) {
    const spec = m[1] ?? m[2];
    const target = path.relative(src, path.resolve(path.dirname(file), spec)).replace(/\.js$/, '.ts');
    if (!target.startsWith('..')) deps.add(target);
  }
  graph.set(rel, deps);
}

const problems = bareZod.map((f) => `${f} imports 'zod': import 'zod/v4' (the peer range includes zod 3.25)`);

// TS `private`/`protected` is erased at runtime (any cast reads the member); `#private` is not. A constructor is
// the exception: JS has no private constructor, and `private constructor` is how a class says "use the factory".
for (const file of walk(src)) {
  const rel = path.relative(src, file);
  const text = fs.readFileSync(file, 'utf8');
  if (!/\b(private|protected)\b/.test(text)) continue;
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const visit = (node) => {
    if (!ts.isConstructorDeclaration(node) && ts.canHaveModifiers(node))
      for (const m of ts.getModifiers(node) ?? [])
        if (m.kind === ts.SyntaxKind.PrivateKeyword || m.kind === ts.SyntaxKind.ProtectedKeyword) {
          const line = sf.getLineAndCharacterOfPosition(m.getStart(sf)).line + 1;
          problems.push(`${rel}:${line}: TS \`${m.getText(sf)}\` modifier: use a JS \`#private\` member`);
        }
    ts.forEachChild(node, visit);
  };
  visit(sf);
}
for (const [from, deps] of graph) {
  for (const rule of RULES) {
    if (!(from === rule.from || from.startsWith(rule.from))) continue;
    for (const to of deps) if (!rule.allow(to)) problems.push(`${from} imports ${to}: ${rule.why}`);
  }
}

// Tarjan's strongly connected components: any component with more than one file is a cycle.
let index = 0;
const stack = [];
const meta = new Map();
function connect(v) {
  meta.set(v, { index, low: index, onStack: true });
  index++;
  stack.push(v);
  for (const w of graph.get(v) ?? []) {
    if (!graph.has(w)) continue;
    if (!meta.has(w)) {
      connect(w);
      meta.get(v).low = Math.min(meta.get(v).low, meta.get(w).low);
    } else if (meta.get(w).onStack) meta.get(v).low = Math.min(meta.get(v).low, meta.get(w).index);
  }
  if (meta.get(v).low === meta.get(v).index) {
    const component = [];
    let w;
    do {
      w = stack.pop();
      meta.get(w).onStack = false;
      component.push(w);
    } while (w !== v);
    if (component.length > 1) problems.push(`import cycle: ${component.sort().join(' ↔ ')}`);
  }
}
for (const v of graph.keys()) if (!meta.has(v)) connect(v);

if (problems.length) {
  console.error(`layer rules broken (${problems.length}):\n  ${problems.join('\n  ')}`);
  process.exit(1);
}
console.log(`layer rules hold: ${graph.size} files, no cycles`);
