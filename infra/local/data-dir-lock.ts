import { linkSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { isProcessAlive, readProcStat } from './processes.ts';

/** Who holds a DATA_DIR: the pid of its `npm start`, when it started, and (on Linux) the pid's start time. */
export interface LockHolder {
  pid: number;
  started_at: string;
  proc_start?: string;
}

/** The lock file of `npm start` in a DATA_DIR. */
export const lockFile = (dataDir: string): string => join(dataDir, 'npm-start.lock');

/** Another running `npm start` holds the DATA_DIR. */
export class DataDirLockedError extends Error {
  readonly holder: LockHolder;

  constructor(dataDir: string, holder: LockHolder) {
    super(
      `DATA_DIR ${dataDir} is in use by another npm start (pid ${holder.pid}, started ${holder.started_at}); ` +
        'exiting so as not to corrupt its data. Stop that one first, or set DATA_DIR to another directory.',
    );
    this.name = 'DataDirLockedError';
    this.holder = holder;
  }
}

/** The DATA_DIR lock this process holds. */
export interface DataDirLock {
  file: string;
  /** The holder of the stale lock taken over (its process no longer runs), if there was one. */
  takenOver?: LockHolder | { unreadable: string };
  /** Removes the lock if it is still this process's (idempotent, synchronous: safe in an `exit` handler). */
  release(): void;
}

const readRaw = (file: string): string | undefined => {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
};

const parseHolder = (raw: string): LockHolder | undefined => {
  try {
    const value = JSON.parse(raw) as Partial<LockHolder>;
    return Number.isInteger(value.pid) && typeof value.started_at === 'string'
      ? (value as LockHolder)
      : undefined;
  } catch {
    return undefined;
  }
};

/**
 * Creates `file` holding `content` only if it does not exist, atomically and never half-written: the
 * content goes to a file of this process first, which is then hard-linked to the lock's name (a link
 * fails when the name exists, on every POSIX file system).
 */
function createExclusive(file: string, content: string): boolean {
  const aside = `${file}.${process.pid}`;
  writeFileSync(aside, content);
  try {
    linkSync(aside, file);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  } finally {
    rmSync(aside, { force: true });
  }
}

/**
 * Takes the lock of `npm start` in `dataDir` (the directory must exist): throws DataDirLockedError while
 * a running process holds it, takes over a stale one (its process no longer runs, e.g. after SIGKILL)
 * and reports it in `takenOver`.
 */
export function acquireDataDirLock(dataDir: string, now = new Date()): DataDirLock {
  const file = lockFile(dataDir);
  const mine: LockHolder = {
    pid: process.pid,
    started_at: now.toISOString(),
    proc_start: readProcStat(process.pid)?.startTime,
  };
  const content = `${JSON.stringify(mine)}\n`;
  const release = () => {
    const raw = readRaw(file);
    const holder = raw === undefined ? undefined : parseHolder(raw);
    if (holder?.pid === mine.pid && holder.started_at === mine.started_at) rmSync(file, { force: true });
  };
  let takenOver: DataDirLock['takenOver'];
  // A few rounds: a lock may be released or taken over by another start between two steps of this one.
  for (let round = 0; round < 5; round++) {
    if (createExclusive(file, content)) return { file, takenOver, release };
    const raw = readRaw(file);
    if (raw === undefined) continue;
    const holder = parseHolder(raw);
    if (holder && holder.pid !== process.pid && isProcessAlive(holder.pid, holder.proc_start)) {
      throw new DataDirLockedError(dataDir, holder);
    }
    // Stale. Removed only if it is still the very lock judged, not one another start has just taken
    // (only two starts racing within the microseconds between these two calls could both proceed).
    if (readRaw(file) === raw) rmSync(file, { force: true });
    takenOver = holder ?? { unreadable: raw.slice(0, 200) };
  }
  throw new Error(`could not take the lock ${file}: other starts keep changing it`);
}
