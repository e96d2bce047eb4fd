// @ts-check
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

// The reference web client: built into dist/web and served by the server at /app (no CDN,
// no dev server needed). `npm run build` runs this after the server's own build.
const here = fileURLToPath(new URL('.', import.meta.url));

export default defineConfig({
  root: here,
  base: '/app/',
  publicDir: false,
  logLevel: 'warn',
  build: {
    outDir: fileURLToPath(new URL('../dist/web', import.meta.url)),
    emptyOutDir: true,
    target: 'es2022',
    sourcemap: true,
  },
});
