import path from 'node:path';

/**
 * `compiler.launcher`: a command put before every g++/nvcc call, as CMake's
 * CMAKE_CXX_COMPILER_LAUNCHER (`['ccache']`, `['distcc']`, `['sccache']`).
 *
 * Caching and distributing launchers give the compiler's own output, so they are left
 * out of the cache key (a build through ccache and one without are the same entry); any
 * other launcher may change what is built and is part of the key.
 */
const OUTPUT_NEUTRAL = new Set(['ccache', 'distcc', 'sccache', 'icecc', 'buildcache']);

export function launcherKey(launcher: readonly string[] | undefined): string[] | undefined {
  if (!launcher?.length) return undefined;
  const rest = launcher.filter((word) => !OUTPUT_NEUTRAL.has(path.basename(word)));
  return rest.length ? [...launcher] : undefined;
}
