#!/usr/bin/env node
// Counts the names a package entry point exports (values and types), e.g. `node scripts/count-exports.mjs src/index.ts`.
import path from 'node:path';
import { entryExports } from './entry-exports.mjs';

const entry = path.resolve(process.argv[2] ?? 'src/index.ts');
const { names, values } = entryExports([entry]).get(entry);
console.log(`${names.size} names (${values.length} values): ${values.sort().join(', ')}`);
