import { readFileSync, readlinkSync } from 'node:fs';

/** What Linux says of a process in /proc/<pid>/stat. */
interface ProcStat {
  state: string;
  ppid: number;
  /** Clock ticks after boot: with the pid, it names one process even after the pid is reused. */
  startTime: string;
}

/** A process's state, parent and start time from /proc, or undefined when it is gone or there is no /proc. */
export function readProcStat(pid: number): ProcStat | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may hold spaces and parentheses: count fields from its closing one.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { state: fields[0] ?? '', ppid: Number(fields[1]), startTime: fields[19] ?? '' };
  } catch {
    return undefined;
  }
}

/** The executable a process runs, or undefined when it is gone or there is no /proc. */
function readExe(pid: number | 'self'): string | undefined {
  try {
    return readlinkSync(`/proc/${pid}/exe`);
  } catch {
    return undefined;
  }
}

/**
 * Whether the process `pid` still runs: it exists, is no zombie and, when its start time was recorded,
 * started then (so a reused pid is not taken for it). Without /proc only the existence check is made.
 */
export function isProcessAlive(pid: number, startTime?: string): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    // EPERM: it exists, under another user.
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  const stat = readProcStat(pid);
  if (!stat) return true;
  if (stat.state === 'Z' || stat.state === 'X') return false;
  return startTime === undefined || stat.startTime === startTime;
}

/** A process this one watches, named by its pid and (on Linux) its start time. */
export interface WatchedProcess {
  pid: number;
  startTime?: string;
}

/**
 * The processes `npm start` runs under: the unbroken line of ancestors running the same Node executable
 * as this one (tsx's launcher, npm), nearest first, stopping at the first other program (a shell, an
 * editor, init). Without /proc, only the parent.
 */
export function listNodeAncestors(): WatchedProcess[] {
  const exe = readExe('self');
  if (exe === undefined) return [{ pid: process.ppid }];
  const line: WatchedProcess[] = [];
  let pid = process.ppid;
  while (pid > 1 && line.length < 16) {
    const stat = readProcStat(pid);
    if (!stat || readExe(pid) !== exe) break;
    line.push({ pid, startTime: stat.startTime });
    pid = stat.ppid;
  }
  return line;
}

/**
 * Calls `onGone` once, with its pid, when one of `watched` has ended: checked every `intervalMs`, on a
 * timer that never keeps this process alive. Returns the timer, to clear on shutdown.
 */
export function watchProcesses(
  watched: WatchedProcess[],
  onGone: (pid: number) => void,
  intervalMs = 1_000,
): NodeJS.Timeout {
  const timer = setInterval(() => {
    const gone = watched.find((entry) => !isProcessAlive(entry.pid, entry.startTime));
    if (!gone) return;
    clearInterval(timer);
    onGone(gone.pid);
  }, intervalMs);
  timer.unref();
  return timer;
}
