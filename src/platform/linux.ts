/**
 * Linux: the POSIX parts (`posix.ts`) and /proc (`linux-proc.ts`), which shows every process's parent, start
 * time and (for our own user's processes) environment, so a descendant that left agy's process group is still
 * found, by ancestry while agy runs and by its session marker after.
 */
import { canWalkTrees, marked, readStat, scanAllSync, scanProcAsync, walkTree } from './linux-proc.js';
import { posixPlatform } from './posix.js';
import type { Platform, ProcessTable } from './types.js';

/** The /proc process table. */
const procTable: ProcessTable = {
  available: true,
  identity: readStat,
  scan: ({ marks }) => scanProcAsync(marks),
  scanSync: scanAllSync,
  canWalkTrees,
  walkTree,
  marked,
};

/** The Linux platform. */
export const linuxPlatform: Platform = posixPlatform('linux', procTable);
