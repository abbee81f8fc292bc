import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DataDirInUseError, LOCK_FILE } from './data-dir-lock.js';
import { openDatabase } from './kysely.js';

/**
 * Two processes on one embedded data folder lose each other's writes (issue 20 item 7): the second
 * one is refused with a clear message, and a lock left by a killed process does not block a restart.
 */
const root = mkdtempSync(path.join(tmpdir(), 'latch-lock-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('the embedded data folder lock', () => {
  it('refuses a second opening while the first is open, and frees the folder on close', { timeout: 60_000 }, async () => {
    const dir = path.join(root, 'a');
    const first = await openDatabase({ kind: 'pglite', dataDir: dir });
    expect(readFileSync(path.join(dir, LOCK_FILE), 'utf8').trim()).toBe(String(process.pid));
    const second = openDatabase({ kind: 'pglite', dataDir: dir });
    await expect(second).rejects.toBeInstanceOf(DataDirInUseError);
    await expect(second).rejects.toThrow(`in use by another Latch process (pid ${process.pid})`);
    await first.close();
    expect(existsSync(path.join(dir, LOCK_FILE))).toBe(false);
    const again = await openDatabase({ kind: 'pglite', dataDir: dir });
    await again.close();
  });

  it('takes over a lock whose process is gone (kill -9 leaves the file behind)', { timeout: 60_000 }, async () => {
    const dir = path.join(root, 'b');
    mkdirSync(dir, { recursive: true });
    const gone = spawnSync(process.execPath, ['-e', '']).pid;
    writeFileSync(path.join(dir, LOCK_FILE), `${gone}\n`);
    const db = await openDatabase({ kind: 'pglite', dataDir: dir });
    expect(readFileSync(path.join(dir, LOCK_FILE), 'utf8').trim()).toBe(String(process.pid));
    await db.close();
  });

  it('`npm start` on a folder another process holds exits with one clear line instead of running a second server', { timeout: 120_000 }, async () => {
    const dir = path.join(root, 'c');
    const holder = await openDatabase({ kind: 'pglite', dataDir: dir });
    try {
      const child = spawn(process.execPath, ['--import', 'tsx', 'server/main.ts'], {
        env: { ...process.env, LATCH_DATA_DIR: dir, PORT: '0', DATABASE_URL: '', NODE_ENV: 'test' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let output = '';
      child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
      const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
      expect(code, output).toBe(1);
      expect(output).toContain(`[latch] could not start: The data folder ${dir} is in use by another Latch process (pid ${process.pid})`);
      expect(output).not.toContain('Latch is running');
    } finally {
      await holder.close();
    }
  });
});
