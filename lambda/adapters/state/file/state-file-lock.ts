/**
 * One `watch` process per state file: a lock file next to it (`<state file>.lock`), created with
 * O_EXCL and holding the owner's pid. A second process finds it and is refused with one line; a
 * lock whose pid is gone (a process killed before it could remove it) is stale and taken over.
 *
 * A state file in a folder that does not exist yet gets the folder, as its first save would
 * (atomic-file-write.ts): the path is the user's own choice of where the watchdog keeps its data,
 * and refusing would only send them to run mkdir.
 */

import { closeSync, mkdirSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

/** Another live process holds the state file. */
export class StateFileLockedError extends Error {
  override readonly name = 'StateFileLockedError';
}

/** Takes the state file's lock: its `path`, and `release`, which removes it (if it is still ours). */
export function lockStateFile(stateFile: string) {
  const pid = process.pid;
  const path = `${resolve(stateFile)}.lock`;
  mkdirSync(dirname(path), { recursive: true });
  for (let attempt = 0; attempt < 2; attempt++) {
    if (tryCreate(path, pid)) return { path, release: () => releaseIf(path, pid) };
    const owner = ownerOf(path);
    if (owner !== undefined && owner !== pid && isAlive(owner)) {
      throw new StateFileLockedError(
        `another lease-watchdog (pid ${owner}) is watching with the state file ${resolve(stateFile)}; stop it first (its lock is ${path})`,
      );
    }
    // Stale (its process is gone, or the file holds no pid): take it over.
    try {
      unlinkSync(path);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
  }
  throw new StateFileLockedError(
    `could not take the lock ${path} for the state file: another process keeps creating it`,
  );
}

function tryCreate(path: string, pid: number): boolean {
  let fd: number;
  try {
    fd = openSync(path, 'wx', 0o600);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
  try {
    writeSync(fd, `${pid}\n`);
  } finally {
    closeSync(fd);
  }
  return true;
}

function ownerOf(path: string): number | undefined {
  try {
    const pid = Number.parseInt(readFileSync(path, 'utf8').trim(), 10);
    return Number.isSafeInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function releaseIf(path: string, pid: number): void {
  if (ownerOf(path) !== pid) return;
  try {
    unlinkSync(path);
  } catch {
    // Already gone: nothing to release.
  }
}
