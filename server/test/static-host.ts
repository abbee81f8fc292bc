/**
 * A built single-page app served as static files on `http://localhost:PORT` (a secure context, and
 * a localhost the projects trust), index.html for every other path, as a host app would be.
 */
import { createReadStream, existsSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript',
  '.css': 'text/css',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
};

export interface StaticHost {
  /** `http://localhost:PORT`. */
  url: string;
  close(): Promise<void>;
}

export async function serveStatic(dir: string): Promise<StaticHost> {
  const server = createServer((req, res) => {
    const pathname = decodeURIComponent(new URL(req.url ?? '/', 'http://localhost').pathname);
    const file = path.join(dir, path.normalize(pathname));
    const target = file.startsWith(dir) && existsSync(file) && statSync(file).isFile() ? file : path.join(dir, 'index.html');
    res.setHeader('content-type', TYPES[path.extname(target)] ?? 'application/octet-stream');
    createReadStream(target).pipe(res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://localhost:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
