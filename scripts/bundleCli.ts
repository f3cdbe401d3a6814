import { chmodSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { orchCodeHash } from '../core/cache/hashing.js';

/**
 * Bundles the compiled CLI (dist/bin/orch.js, tsc's output) into itself: one file plus the
 * chunks its lazily imported commands need, in dist/bin/. orch starts once per command, and
 * loading ~500 separate modules (zod alone ~100 files, yargs, tapable, every plugin) was most
 * of a cache hit's time; a bundle needs no resolution or per-file work.
 *
 * The package API (dist/index.js) is bundled as a second entry, dist/bin/orch-api.js, sharing
 * those chunks, so a config the bundled CLI loads gets the CLI's own classes and registries
 * when it imports from 'orch' (core/config/loadConfig.ts aliases it: ORCH_API_ENTRY). The
 * unbundled dist/ stays the package's API for everything else (`import ... from 'orch'`).
 *
 *   node dist/scripts/bundleCli.js      (the last step of `npm run build`)
 */
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const bin = path.join(root, 'dist', 'bin');

await build({
  absWorkingDir: root,
  entryPoints: { orch: 'dist/bin/orch.js', 'orch-api': 'dist/index.js' },
  outdir: bin,
  chunkNames: 'chunks/[name]-[hash]',
  bundle: true,
  splitting: true, // commands stay lazily imported: `orch --version` loads no compiler
  format: 'esm',
  platform: 'node',
  target: 'node20',
  // koffi loads a native addon found from its own folder; jiti is loaded only with a config
  // file and resolves the config's imports itself
  external: ['koffi', 'jiti'],
  // CommonJS packages inside an ES module bundle call require() for Node's built-ins
  banner: { js: "import { createRequire as __orchCreateRequire } from 'node:module'; const require = __orchCreateRequire(import.meta.url);" },
  define: {
    ORCH_API_ENTRY: JSON.stringify('dist/bin/orch-api.js'),
    // the hash of the compiled code being bundled, so a start need not hash it again
    ORCH_CODE_HASH: JSON.stringify(orchCodeHash()),
  },
  allowOverwrite: true,
  logLevel: 'warning',
});
// tsc's map describes the file the bundle replaced
rmSync(path.join(bin, 'orch.js.map'), { force: true });
chmodSync(path.join(bin, 'orch.js'), 0o755);
