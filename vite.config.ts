import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

/**
 * The admin console (admin-web/), built into dist/admin-web and served by the server at `/`.
 * `npm install` and `npm start` build it when stale (scripts/build.ts); `npx vite --config
 * vite.config.ts` serves it with hot reload, proxying the API to a running `npm start`.
 */
export default defineConfig({
  root: 'admin-web',
  plugins: [react()],
  build: { outDir: '../dist/admin-web', emptyOutDir: true, target: 'es2022', chunkSizeWarningLimit: 1024 },
  server: { proxy: { '/api': 'http://localhost:8400' } },
});
