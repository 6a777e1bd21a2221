import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  acquireDataDirLock,
  DataDirLockedError,
  type LockHolder,
  lockFile,
} from '#infra/local/data-dir-lock.ts';
import { readProcStat } from '#infra/local/processes.ts';

const freshDir = () => mkdtempSync(join(tmpdir(), 'lock-'));
const writeHolder = (dir: string, holder: LockHolder | string) =>
  writeFileSync(lockFile(dir), typeof holder === 'string' ? holder : JSON.stringify(holder));
/** A pid that ran and has ended (and was reaped). */
const deadPid = (): number => spawnSync(process.execPath, ['-e', ''], { stdio: 'ignore' }).pid as number;
const now = new Date('2026-11-23T10:00:00Z');

describe('the DATA_DIR lock of npm start', () => {
  it('is taken in an empty DATA_DIR, names this process, and is released only once', () => {
    const dir = freshDir();
    const lock = acquireDataDirLock(dir, now);
    expect(lock.takenOver).toBeUndefined();
    expect(JSON.parse(readFileSync(lockFile(dir), 'utf8'))).toMatchObject({
      pid: process.pid,
      started_at: '2026-11-23T10:00:00.000Z',
    });
    lock.release();
    expect(existsSync(lockFile(dir))).toBe(false);
    lock.release();
  });

  it('is refused while a running process holds it, naming that process', () => {
    const dir = freshDir();
    const holder = {
      pid: process.ppid,
      started_at: '2026-11-23T09:00:00.000Z',
      proc_start: readProcStat(process.ppid)?.startTime,
    };
    writeHolder(dir, holder);
    expect(() => acquireDataDirLock(dir, now)).toThrow(DataDirLockedError);
    expect(() => acquireDataDirLock(dir, now)).toThrow(
      `DATA_DIR ${dir} is in use by another npm start (pid ${process.ppid}, started 2026-11-23T09:00:00.000Z)`,
    );
    expect(JSON.parse(readFileSync(lockFile(dir), 'utf8'))).toEqual(holder);
  });

  it.each([
    ['its process has ended', () => ({ pid: deadPid(), started_at: '2026-11-22T09:00:00.000Z' })],
    [
      'its pid now runs another process (another start time)',
      () => ({ pid: process.ppid, started_at: '2026-11-22T09:00:00.000Z', proc_start: '1' }),
    ],
    [
      'it names this very pid (an earlier life)',
      () => ({ pid: process.pid, started_at: '2026-11-22T09:00:00.000Z' }),
    ],
  ])('is taken over when stale: %s', (_case, makeHolder) => {
    const dir = freshDir();
    const stale = makeHolder();
    writeHolder(dir, stale);
    const lock = acquireDataDirLock(dir, now);
    expect(lock.takenOver).toEqual(stale);
    expect(JSON.parse(readFileSync(lockFile(dir), 'utf8')).pid).toBe(process.pid);
    lock.release();
  });

  it('is taken over when unreadable', () => {
    const dir = freshDir();
    writeHolder(dir, 'not json');
    expect(acquireDataDirLock(dir, now).takenOver).toEqual({ unreadable: 'not json' });
  });

  it('is left alone by a release once another process holds it', () => {
    const dir = freshDir();
    const lock = acquireDataDirLock(dir, now);
    const other = { pid: process.ppid, started_at: '2026-11-23T11:00:00.000Z' };
    writeHolder(dir, other);
    lock.release();
    expect(JSON.parse(readFileSync(lockFile(dir), 'utf8'))).toEqual(other);
  });
});
