/*
 * Streaming (non-temporal) stores of a launch's outputs (plugins/codegen/streamedOutputs.ts).
 *
 * A field a launch writes and never reads is computed a K column at a time into a small
 * buffer in L1, then copied to the field with streaming stores: a plain store that misses
 * first reads the line it overwrites (hdiff: 8 of its 32 bytes a point), a streaming store
 * writes the whole line past the caches. Only copies: the values, and so the results, are
 * bitwise those of the plain stores.
 */
#ifndef ORCH_STREAM_H
#define ORCH_STREAM_H

#include <cstdint>
#include <cstring>

namespace orch {

/*
 * Where a launch built with codegen.streamOutputs streams its outputs: only where each
 * thread's share of the domain is past ORCH_STREAM_MIN_POINTS (its fields no longer fit in
 * L2: in cache, a streaming store evicts a line the next call would have found there). Both
 * paths give bitwise the same results: -D ORCH_STREAM_STORES=1 forces the streams, =0 the
 * plain stores, for tests and measurements. Without SSE2 there is nothing to stream with.
 */
#ifndef ORCH_STREAM_MIN_POINTS
#define ORCH_STREAM_MIN_POINTS 65536
#endif
/* Levels a column buffer holds: longer columns (and tiles of more levels) take the plain stores. */
#ifndef ORCH_STREAM_LEVELS
#define ORCH_STREAM_LEVELS 512
#endif

inline bool stream_stores(int64_t points, int threads) {
#if defined(ORCH_STREAM_STORES)
  (void)points;
  (void)threads;
  return ORCH_STREAM_STORES != 0;
#elif defined(__SSE2__)
  return points >= static_cast<int64_t>(ORCH_STREAM_MIN_POINTS) * (threads > 1 ? threads : 1);
#else
  (void)points;
  (void)threads;
  return false;
#endif
}

/*
 * Copies a K column of doubles (`n` values, stride `s2`) to a field: its whole 64-byte lines
 * by streaming stores, the values before the first and after the last whole line (a column
 * that starts inside a line: numpy's arrays start 16 bytes past one) by plain stores. A line
 * two columns share is then read once (by the first plain store), where a column of 80
 * levels streams 9 of its 11 lines. (Completing such a line from both columns and streaming
 * it too needed variable-length copies into a line buffer: 2.3 more instructions a point.)
 */
inline void stream_column(double* dst, const double* src, int64_t n, int64_t s2) {
  const uintptr_t at = reinterpret_cast<uintptr_t>(dst);
  if (s2 != 1 || at % sizeof(double) != 0) {
    for (int64_t k = 0; k < n; ++k) dst[k * s2] = src[k];
    return;
  }
  int64_t head = static_cast<int64_t>((64 - at % 64) % 64 / sizeof(double));
  if (head > n) head = n;
  const int64_t whole = head + (n - head) / 8 * 8;
  for (int64_t k = 0; k < head; ++k) dst[k] = src[k];
  for (int64_t k = head; k < whole; k += 8) {
#if defined(__AVX512F__)
    typedef double v8d __attribute__((vector_size(64)));
    v8d v;
    std::memcpy(&v, src + k, sizeof v);
    __builtin_ia32_movntpd512(dst + k, v);  // _mm512_stream_pd, without <immintrin.h>
#elif defined(__AVX__)
    typedef double v4d __attribute__((vector_size(32)));
    v4d a, b;
    std::memcpy(&a, src + k, sizeof a);
    std::memcpy(&b, src + k + 4, sizeof b);
    __builtin_ia32_movntpd256(dst + k, a);  // _mm256_stream_pd
    __builtin_ia32_movntpd256(dst + k + 4, b);
#elif defined(__SSE2__)
    typedef double v2d __attribute__((vector_size(16)));
    for (int h = 0; h < 8; h += 2) {
      v2d a;
      std::memcpy(&a, src + k + h, sizeof a);
      __builtin_ia32_movntpd(dst + k + h, a);  // _mm_stream_pd
    }
#else
    std::memcpy(dst + k, src + k, 64);
#endif
  }
  for (int64_t k = whole; k < n; ++k) dst[k] = src[k];
}

/* Orders the streaming stores before what follows (the tile's end, the barrier ending the launch). */
inline void stream_fence() {
#ifdef __SSE2__
  __builtin_ia32_sfence();
#endif
}

}  // namespace orch

#endif
