/**
 * codegen.vectorWidth: the widest vectors g++ should prefer in the generated loops, where it
 * compiles for AVX-512 (elsewhere the pragma is left out). With -march=native on Zen 4 g++
 * prefers 512-bit vectors; a K loop of 79 levels then runs 9 full vectors and a 7-level tail
 * through narrower copies of the loop, once per column and nest (ppm_advection at 12x12x79,
 * 1 thread, timed under load: 32.8 us a call with 512-bit vectors, 24.4 us with 256-bit).
 * `orch tune` tries it; the presets leave g++'s choice.
 */
export function vectorWidthPragma(bits: number | false | undefined): string[] {
  if (!bits) return [];
  return ['#if defined(__x86_64__) && defined(__AVX512F__)', `#pragma GCC target("prefer-vector-width=${bits}")`, '#endif'];
}
