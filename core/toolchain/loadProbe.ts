import koffi from 'koffi';

/**
 * Run as a child process (libraryCheck.ts): loads a freshly compiled library and looks up
 * the entry points orch calls, so a library that does not load never gets into the cache.
 * A child, because a broken library can crash the process that loads it.
 *
 *   node loadProbe.js LIBRARY SYMBOL
 */
const [library, symbol] = process.argv.slice(2);
try {
  const lib = koffi.load(library);
  for (const suffix of ['init', 'run', 'last_error', 'exit']) lib.func(`${symbol}_${suffix}`, 'void *', []);
  const signature = lib.func(`${symbol}_signature`, 'const char *', []) as () => string;
  JSON.parse(signature());
  lib.unload();
} catch (e) {
  process.stderr.write((e as Error).message);
  process.exit(1);
}
