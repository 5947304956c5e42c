/**
 * macOS: the POSIX parts (`posix.ts`: process groups, signals, `/bin/sh`, the curl/bash hook relays) without a
 * process table. macOS has no /proc, so, as before this seam existed, the scans find nothing and the process
 * group is the whole of the no-orphan guarantee: a descendant that leaves agy's group (`setsid`) escapes. A
 * table built on `sysctl(KERN_PROC)`/libproc (`proc_listchildpids`, `proc_pidinfo`) or `ps -axo pid,ppid,lstart`
 * would close that gap; what it needs is in docs/architecture.md ("Platforms").
 */
import { posixPlatform } from './posix.js';
import type { Platform, ProcessTable } from './types.js';

/** No process table: every scan is empty. */
const noProcessTable: ProcessTable = {
  available: false,
  identity: () => undefined,
  scan: () => Promise.resolve(new Map()),
  scanSync: () => new Map(),
  canWalkTrees: () => false,
  walkTree: () => Promise.resolve([]),
  marked: () => [],
};

/** The macOS platform. */
export const darwinPlatform: Platform = posixPlatform('darwin', noProcessTable);
