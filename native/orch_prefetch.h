/*
 * Software prefetch of the K columns fused nests read next (plugins/codegen/columnPrefetch.ts).
 *
 * A tile's fused loop walks its columns along the contiguous axis and reads each field's
 * newest row a column at a time: a dozen streams at once (fields, rolled temporaries), more
 * than the L1 prefetcher follows, so each new column's lines arrive as demand misses. A hint
 * only: it never faults (addresses, not pointers: the column may lie past the array's end)
 * and changes no value.
 */
#ifndef ORCH_PREFETCH_H
#define ORCH_PREFETCH_H

#include <cstdint>

namespace orch {

/*
 * Where a launch built with codegen.prefetchColumns prefetches: only where each thread's share
 * of the domain is past ORCH_PREFETCH_MIN_POINTS (its fields no longer fit in L2; in cache the
 * prefetches are only instructions: hdiff at 12x12x79, 3-6% slower). -D ORCH_PREFETCH_COLUMNS=0
 * or =1 forces the choice, for tests and measurements.
 */
#ifndef ORCH_PREFETCH_MIN_POINTS
#define ORCH_PREFETCH_MIN_POINTS 65536
#endif

inline bool prefetch_pays(int64_t points, int threads) {
#if defined(ORCH_PREFETCH_COLUMNS)
  (void)points;
  (void)threads;
  return ORCH_PREFETCH_COLUMNS != 0;
#else
  return points >= static_cast<int64_t>(ORCH_PREFETCH_MIN_POINTS) * (threads > 1 ? threads : 1);
#endif
}

/* Prefetches `bytes` from address `at` into L1, a line at a time. */
inline void prefetch_column(uintptr_t at, int64_t bytes) {
  for (int64_t o = 0; o < bytes; o += 64) __builtin_prefetch(reinterpret_cast<const void*>(at + static_cast<uintptr_t>(o)), 0, 3);
}

}  // namespace orch

#endif
