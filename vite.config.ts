import { defineConfig } from 'vite';

/** The admin console's build (admin-web/) arrives with its issue; this keeps the top level in place. */
export default defineConfig({
  root: 'admin-web',
  build: { outDir: '../dist/admin-web', emptyOutDir: true },
});
