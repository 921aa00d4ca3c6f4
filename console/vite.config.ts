/*
 * The console's build: `vite build console` bundles console/ into dist/console/, served by immogate
 * under /console/. JSX is compiled by Vite's own transformer for Preact's automatic runtime, so no
 * Babel plugin is needed.
 */
import { defineConfig } from 'vite';

export default defineConfig({
  base: '/console/',
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: '../dist/console',
    // The output lies outside this folder: Vite empties it only when told to.
    emptyOutDir: true,
    target: 'es2022',
    sourcemap: true,
    // Every browser the console supports loads module preloads itself.
    modulePreload: { polyfill: false },
  },
});
