import { closeSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import path from 'node:path';

/**
 * One process per embedded data folder. PGlite runs PostgreSQL inside this process with no
 * postmaster to notice a second one: two Latch servers (or a server and `npm run migrate`) on one
 * folder each keep their own copy in memory and the last to flush wins, silently losing the other's
 * writes. So the folder holds a lock file naming the process that owns it.
 *
 * The file is created exclusively (O_EXCL). A lock whose process is gone (kill -9, a crash) is
 * stale and taken over. After writing, the file is read back: that catches most of two processes
 * taking over one stale lock at the same instant (without flock, which Node lacks, a window of a
 * few microseconds remains between the read-back and the other's takeover).
 */
export const LOCK_FILE = 'latch.lock';

export class DataDirInUseError extends Error {
  constructor(dataDir: string, pid: number) {
    super(
      `The data folder ${dataDir} is in use by another Latch process (pid ${pid}). ` +
        `Stop that process first, or give this one its own folder with LATCH_DATA_DIR. ` +
        `If no such process is running, delete ${path.join(dataDir, LOCK_FILE)}.`,
    );
    this.name = 'DataDirInUseError';
  }
}

function isAlive(pid: number): boolean {
  if (!Number.isSafeInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function readOwner(file: string): number | null {
  try {
    return Number.parseInt(readFileSync(file, 'utf8').trim(), 10);
  } catch {
    return null;
  }
}

/** Lock files this process holds: a second opening in the same process is refused too. */
const held = new Set<string>();

/** Takes the folder's lock for this process; returns the function that releases it. */
export function lockDataDir(dataDir: string): () => void {
  const file = path.resolve(dataDir, LOCK_FILE);
  if (held.has(file)) throw new DataDirInUseError(dataDir, process.pid);
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const fd = openSync(file, 'wx', 0o600);
      writeSync(fd, `${process.pid}\n`);
      closeSync(fd);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const owner = readOwner(file);
      // Our own pid in a file this process does not hold: a stale lock of an earlier process that
      // had the same pid (pid reuse after a restart in a container).
      if (owner !== null && owner !== process.pid && isAlive(owner)) throw new DataDirInUseError(dataDir, owner);
      try {
        unlinkSync(file);
      } catch {
        // Another process removed it first: try again.
      }
      continue;
    }
    if (readOwner(file) !== process.pid) {
      const owner = readOwner(file);
      throw new DataDirInUseError(dataDir, owner ?? 0);
    }
    held.add(file);
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      held.delete(file);
      process.off('exit', release);
      if (readOwner(file) === process.pid) {
        try {
          unlinkSync(file);
        } catch {
          // Already gone.
        }
      }
    };
    // A process that exits without closing the database (process.exit on a fatal error) still frees it.
    process.on('exit', release);
    return release;
  }
  throw new DataDirInUseError(dataDir, readOwner(file) ?? 0);
}
