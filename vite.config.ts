// Vite config for the approval UI. The broker serves dist/renderer/ under a strict CSP (no inline
// scripts or styles), and Electron may load it from disk, so assets use relative URLs.
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

export default defineConfig({
  root: 'renderer',
  base: './',
  plugins: [react()],
  build: {
    outDir: '../dist/renderer',
    emptyOutDir: true,
    target: 'es2022',
    sourcemap: true,
    // Inlined assets would become data: URLs; keep every asset a same-origin file.
    assetsInlineLimit: 0,
    // The polyfill is only for old browsers; Chromium has modulepreload.
    modulePreload: { polyfill: false },
    reportCompressedSize: false,
  },
  worker: { format: 'es' },
});
