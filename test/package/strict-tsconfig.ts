/**
 * The tsconfig a strict Node-only consumer project type-checks `main.ts` with: no DOM (the public declarations
 * must not need `HeadersInit` & co., which they once did through the MCP SDK) and `skipLibCheck` off, so the
 * package's own declarations are checked too.
 */
export const STRICT_CONSUMER_TSCONFIG = JSON.stringify({
  compilerOptions: {
    strict: true,
    module: 'NodeNext',
    moduleResolution: 'NodeNext',
    target: 'ES2022',
    lib: ['ES2022'],
    noEmit: true,
    skipLibCheck: false,
    types: ['node'],
  },
  include: ['main.ts'],
});
