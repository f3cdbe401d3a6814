/*
 * Staging of a tile's columns for FORWARD/BACKWARD sweeps (plugins/codegen/sweepStaging.ts).
 *
 * Fields are C-ordered (I, J, K), K contiguous, but a tile sweeps level by level across its
 * columns, so it would read each field at stride NZ along J: one cache line per column per
 * level, for every column of the tile at once (they thrash L1), loaded element by element.
 * Staging copies the tile's box once into a [K][I][J] buffer (K planes `sk` elements apart,
 * rows `nj` apart), reading every column along K, and the sweeps read whole rows. Only
 * copies: the values, and so the results, are bitwise the same.
 */
#ifndef ORCH_STAGE_H
#define ORCH_STAGE_H

#include <cstdint>
#include <algorithm>
#include <cstring>

namespace orch {

/* A 4x4 block of doubles transposed with GCC vector extensions: 4 loads, 8 shuffles, 4 stores. */
typedef double stage_v4d __attribute__((vector_size(32)));
typedef long long stage_v4i __attribute__((vector_size(32)));

inline void stage_transpose4(double* dst, int64_t dst_stride, const double* src, int64_t src_stride) {
  // named values, not arrays: gcc keeps them in registers (an array went through the stack)
  stage_v4d r0, r1, r2, r3;
  std::memcpy(&r0, src, sizeof r0);
  std::memcpy(&r1, src + src_stride, sizeof r1);
  std::memcpy(&r2, src + 2 * src_stride, sizeof r2);
  std::memcpy(&r3, src + 3 * src_stride, sizeof r3);
  const stage_v4d t0 = __builtin_shuffle(r0, r1, stage_v4i{0, 4, 2, 6});
  const stage_v4d t1 = __builtin_shuffle(r0, r1, stage_v4i{1, 5, 3, 7});
  const stage_v4d t2 = __builtin_shuffle(r2, r3, stage_v4i{0, 4, 2, 6});
  const stage_v4d t3 = __builtin_shuffle(r2, r3, stage_v4i{1, 5, 3, 7});
  const stage_v4d o0 = __builtin_shuffle(t0, t2, stage_v4i{0, 1, 4, 5});
  const stage_v4d o1 = __builtin_shuffle(t1, t3, stage_v4i{0, 1, 4, 5});
  const stage_v4d o2 = __builtin_shuffle(t0, t2, stage_v4i{2, 3, 6, 7});
  const stage_v4d o3 = __builtin_shuffle(t1, t3, stage_v4i{2, 3, 6, 7});
  std::memcpy(dst, &o0, sizeof o0);
  std::memcpy(dst + dst_stride, &o1, sizeof o1);
  std::memcpy(dst + 2 * dst_stride, &o2, sizeof o2);
  std::memcpy(dst + 3 * dst_stride, &o3, sizeof o3);
}

#ifdef __AVX512F__
typedef double stage_v8d __attribute__((vector_size(64)));
typedef long long stage_v8i __attribute__((vector_size(64)));

/*
 * An 8x8 block of doubles transposed in AVX-512 registers (GCC vector extensions): 8 loads,
 * 24 two-source shuffles, 8 stores, streamed past the caches when `stream` (each row then a
 * whole aligned line).
 */
template <bool stream>
inline void stage_transpose8(double* dst, int64_t dst_stride, const double* src, int64_t src_stride, int rows = 8) {
  stage_v8d r[8], t[8], u[8];
  if (rows == 8) {
    for (int n = 0; n < 8; ++n) std::memcpy(&r[n], src + n * src_stride, sizeof r[n]);
  } else {
    // the first `rows` of each line only: masked loads neither read nor fault past them
    const unsigned char mask = static_cast<unsigned char>((1u << rows) - 1);
    for (int n = 0; n < 8; ++n) r[n] = __builtin_ia32_loadupd512_mask(src + n * src_stride, stage_v8d{}, mask);
  }
  // pairs of rows interleaved, then pairs of pairs, then halves: row n of the result is column n
  for (int n = 0; n < 8; n += 2) {
    t[n] = __builtin_shuffle(r[n], r[n + 1], stage_v8i{0, 8, 2, 10, 4, 12, 6, 14});
    t[n + 1] = __builtin_shuffle(r[n], r[n + 1], stage_v8i{1, 9, 3, 11, 5, 13, 7, 15});
  }
  for (int n = 0; n < 8; n += 4)
    for (int h = 0; h < 2; ++h) {
      u[n + h] = __builtin_shuffle(t[n + h], t[n + 2 + h], stage_v8i{0, 1, 8, 9, 4, 5, 12, 13});
      u[n + 2 + h] = __builtin_shuffle(t[n + h], t[n + 2 + h], stage_v8i{2, 3, 10, 11, 6, 7, 14, 15});
    }
  for (int n = 0; n < 4; ++n) {
    const stage_v8d lo = __builtin_shuffle(u[n], u[n + 4], stage_v8i{0, 1, 2, 3, 8, 9, 10, 11});
    const stage_v8d hi = __builtin_shuffle(u[n], u[n + 4], stage_v8i{4, 5, 6, 7, 12, 13, 14, 15});
    if (rows < 8) {
      if (n < rows) std::memcpy(dst + n * dst_stride, &lo, sizeof lo);
      if (n + 4 < rows) std::memcpy(dst + (n + 4) * dst_stride, &hi, sizeof hi);
    } else if (stream) {
      __builtin_ia32_movntpd512(dst + n * dst_stride, lo);  // _mm512_stream_pd, without <immintrin.h>
      __builtin_ia32_movntpd512(dst + (n + 4) * dst_stride, hi);
    } else {
      std::memcpy(dst + n * dst_stride, &lo, sizeof lo);
      std::memcpy(dst + (n + 4) * dst_stride, &hi, sizeof hi);
    }
  }
}
#endif

/*
 * Copies between a field's box of ni x nj x nk points (`field` at the box's first point,
 * strides s0, s1, s2) and its staged [K][I][J] copy (`staged` at the same point, plane stride
 * sk, row stride rs), `in`: field to staged.
 */
template <class T>
inline void stage_elementwise(bool in, T* field, int64_t s0, int64_t s1, int64_t s2, T* staged, int64_t sk, int64_t rs, int64_t ni,
                              int64_t nj, int64_t nk) {
  for (int64_t i = 0; i < ni; ++i)
    for (int64_t j = 0; j < nj; ++j)
      for (int64_t k = 0; k < nk; ++k) {
        T& f = field[i * s0 + j * s1 + k * s2];
        T& s = staged[k * sk + i * rs + j];
        if (in) s = f;
        else f = s;
      }
}

template <class T>
inline void stage_columns(bool in, T* field, int64_t s0, int64_t s1, int64_t s2, T* staged, int64_t sk, int64_t rs, int64_t ni,
                          int64_t nj, int64_t nk) {
  stage_elementwise(in, field, s0, s1, s2, staged, sk, rs, ni, nj, nk);
}

template <>
inline void stage_columns<double>(bool in, double* field, int64_t s0, int64_t s1, int64_t s2, double* staged, int64_t sk, int64_t rs,
                                  int64_t ni, int64_t nj, int64_t nk) {
  if (s2 != 1) {
    // not K-contiguous (a view): element by element
    stage_elementwise(in, field, s0, s1, s2, staged, sk, rs, ni, nj, nk);
    return;
  }
#ifdef __AVX512F__
  constexpr int64_t B = 8;
#else
  constexpr int64_t B = 4;
#endif
  const int64_t njb = nj / B * B, nkb = nk / B * B;
  for (int64_t i = 0; i < ni; ++i) {
    double* const frow = field + i * s0;
    double* const srow = staged + i * rs;
    for (int64_t j = 0; j < njb; j += B) {
      for (int64_t k = 0; k < nkb; k += B) {
#ifdef __AVX512F__
        if (in) stage_transpose8<false>(srow + k * sk + j, sk, frow + j * s1 + k, s1);
        else stage_transpose8<false>(frow + j * s1 + k, s1, srow + k * sk + j, sk);
#else
        if (in) stage_transpose4(srow + k * sk + j, sk, frow + j * s1 + k, s1);
        else stage_transpose4(frow + j * s1 + k, s1, srow + k * sk + j, sk);
#endif
      }
#ifdef __AVX512F__
      // the last levels of 8 columns copied in as one transpose of part lines (a box of 79
      // levels: 7 levels x 8 columns element by element cost about a fifth of its copy)
      if (in && nk > nkb) {
        stage_transpose8<false>(srow + nkb * sk + j, sk, frow + j * s1 + nkb, s1, static_cast<int>(nk - nkb));
        continue;
      }
#endif
      stage_elementwise(in, frow + j * s1 + nkb, 0, s1, 1, srow + nkb * sk + j, sk, 0, 1, B, nk - nkb);
    }
    stage_elementwise(in, frow + njb * s1, 0, s1, 1, srow + njb, sk, 0, 1, nj - njb, nk);
  }
}

/*
 * The copy back of stage_columns (staged to field), with the field's whole lines written by
 * streaming stores where the machine has AVX-512 and the columns allow it (K-contiguous,
 * column starts a whole number of lines apart): a sweep's output is not read again by the
 * tile, and a store that misses would first read the line it overwrites (a third more
 * traffic for the Thomas solver). The caller ends its writes with stage_fence(). Only
 * copies: bitwise the same as stage_columns.
 */
template <class T>
inline void stage_columns_back(T* field, int64_t s0, int64_t s1, int64_t s2, T* staged, int64_t sk, int64_t rs, int64_t ni, int64_t nj,
                               int64_t nk, int64_t skip_lo = 0, int64_t skip_hi = 0) {
  // (levels [skip_lo, skip_hi) were streamed already, stage_stream: copied again, the same values)
  (void)skip_lo;
  (void)skip_hi;
  stage_columns<T>(false, field, s0, s1, s2, staged, sk, rs, ni, nj, nk);
}

#ifdef __AVX512F__
template <>
inline void stage_columns_back<double>(double* field, int64_t s0, int64_t s1, int64_t s2, double* staged, int64_t sk, int64_t rs, int64_t ni,
                                       int64_t nj, int64_t nk, int64_t skip_lo, int64_t skip_hi) {
  const uintptr_t at = reinterpret_cast<uintptr_t>(field);
  if (s2 != 1 || s1 % 8 != 0 || s0 % 8 != 0 || at % sizeof(double) != 0) {
    stage_columns<double>(false, field, s0, s1, s2, staged, sk, rs, ni, nj, nk);
    return;
  }
  // levels before the first whole line (the same in every column: s1, s0 are whole lines)
  const int64_t head = std::min<int64_t>(nk, static_cast<int64_t>((64 - at % 64) % 64 / sizeof(double)));
  const int64_t nkb = head + (nk - head) / 8 * 8, njb = nj / 8 * 8;
  // A box of whole columns that start off a line (numpy's arrays are 16 bytes past one): a
  // column's last levels and the next one's first share a line, streamed whole as a seam
  // (stored in parts, it would be read first: 2 lines in 11 of a column of 80).
  const bool seams = head > 0 && nk == s1;
  for (int64_t i = 0; i < ni; ++i) {
    double* const frow = field + i * s0;
    double* const srow = staged + i * rs;
    stage_elementwise(false, frow, 0, s1, 1, srow, sk, 0, 1, seams ? 1 : nj, head);
    for (int64_t j = 0; j < njb; j += 8) {
      for (int64_t k = head; k < nkb; k += 8)
        if (k < skip_lo || k + 8 > skip_hi) stage_transpose8<true>(frow + j * s1 + k, s1, srow + k * sk + j, sk);
      if (!seams) stage_elementwise(false, frow + j * s1 + nkb, 0, s1, 1, srow + nkb * sk + j, sk, 0, 1, 8, nk - nkb);
    }
    for (int64_t j = njb; j < nj; ++j)
      for (int64_t k = head; k < (seams ? nkb : nk); ++k) frow[j * s1 + k] = srow[k * sk + j];
    if (!seams) continue;
    const int64_t tail = nk - nkb;  // 8 - head
    for (int64_t j = 1; j < nj; ++j) {
      double line[8];
      for (int64_t n = 0; n < tail; ++n) line[n] = srow[(nkb + n) * sk + j - 1];
      for (int64_t n = 0; n < head; ++n) line[tail + n] = srow[n * sk + j];
      stage_v8d v;
      std::memcpy(&v, line, sizeof v);
      __builtin_ia32_movntpd512(frow + j * s1 - tail, v);
    }
    stage_elementwise(false, frow + (nj - 1) * s1 + nkb, 0, s1, 1, srow + nkb * sk + nj - 1, sk, 0, 1, 1, tail);
  }
}
#endif

/*
 * A written field streamed back while the tile's last sweep over it (BACKWARD) finishes it:
 * each time the sweep has finished the levels of a whole line of every column, those lines
 * are streamed (8 levels of 8 columns a transpose), so the stores overlap the sweep's
 * arithmetic instead of all waiting for the copy back at the tile's end (the hand kernel,
 * 128x128x80, 1 thread: 5% faster). stage_columns_back then skips the levels streamed
 * ([lo, hi), absolute levels). One row of whole 8-column groups, K-contiguous, AVX-512;
 * else nothing is streamed here. Only copies of final values: bitwise the same.
 */
struct stage_stream {
  double* field = nullptr;  // the box's first column at its first level, k0
  const double* staged = nullptr;
  int64_t s1 = 0, sk = 0, nj = 0, k0 = 0;
  int64_t next = 0, stop = 1, lo = 0, hi = 0;  // the next chunk [next, next + 8), down to stop

  stage_stream() = default;
  // levels klo..khi - 1 are the sweep's (each written over the whole box by it)
  stage_stream(double* field_, int64_t s0, int64_t s1_, int64_t s2, const double* staged_, int64_t sk_, int64_t ni, int64_t nj_, int64_t k0_,
               int64_t klo, int64_t khi) {
    (void)s0;
#ifdef __AVX512F__
    const uintptr_t at = reinterpret_cast<uintptr_t>(field_);
    if (s2 != 1 || s1_ % 8 != 0 || at % sizeof(double) != 0 || ni != 1 || nj_ % 8 != 0 || klo >= khi) return;
    field = field_;
    staged = staged_;
    s1 = s1_;
    sk = sk_;
    nj = nj_;
    k0 = k0_;
    // lines start at levels k0 + head + 8m in every column (s1 whole lines)
    const int64_t base = k0 + static_cast<int64_t>((64 - at % 64) % 64 / sizeof(double));
    const auto floor8 = [](int64_t v) { return v >= 0 ? v / 8 * 8 : -((-v + 7) / 8 * 8); };
    stop = base + floor8(klo - base + 7);
    next = base + floor8(khi - 8 - base);
    lo = hi = next + 8;
#else
    (void)field_, (void)s1_, (void)s2, (void)staged_, (void)sk_, (void)ni, (void)nj_, (void)k0_, (void)klo, (void)khi;
#endif
  }

  /* After the sweep's level `k`: levels k.. are final. */
  void done(int64_t k) {
#ifdef __AVX512F__
    if (next < stop || k > next) return;
    for (int64_t j = 0; j < nj; j += 8) stage_transpose8<true>(field + j * s1 + (next - k0), s1, staged + (next - k0) * sk + j, sk);
    lo = next;
    next -= 8;
#else
    (void)k;
#endif
  }
};

/* Orders the streaming stores of stage_columns_back before what follows (the tile's end, a barrier). */
inline void stage_fence() {
#ifdef __SSE2__
  __builtin_ia32_sfence();
#endif
}

/*
 * Prefetches a tile's next columns while its sweeps run: `rows` rows of `bytes` from `start`,
 * `row_stride` bytes apart, a few lines per level (next()), so the memory is busy while the
 * tile computes and the next tile's copy reads from cache. A hint only: it never faults and
 * changes no value. Into L2 (locality 1): L1 keeps the tile's buffers. next() runs once a
 * level for a row of a few dozen points, so it is a compare and a few prefetches.
 */
struct stage_prefetch {
  uintptr_t at = 0, end = 0, row = 0;  // addresses, not pointers: the next columns may lie past the array's end
  int64_t rows = 0, row_stride = 0, bytes = 0, step = 0;

  stage_prefetch() = default;
  stage_prefetch(uintptr_t start, int64_t rows_, int64_t row_stride_, int64_t bytes_, int64_t levels)
      : at(start), end(start), row(start), rows(rows_), row_stride(row_stride_), bytes(bytes_) {
    if (rows <= 0 || bytes <= 0) return;
    end = start + static_cast<uintptr_t>(bytes);
    const int64_t lines = rows * ((bytes + 63) / 64);
    step = 64 * (levels > 0 ? (lines + levels - 1) / levels : lines);
  }

  void next() {
    if (at < end) {
      const uintptr_t stop = at + static_cast<uintptr_t>(step);
      for (; at < stop; at += 64) __builtin_prefetch(reinterpret_cast<const void*>(at), 0, 1);
    } else if (rows > 1) {
      --rows;
      row += static_cast<uintptr_t>(row_stride);
      at = row;
      end = row + static_cast<uintptr_t>(bytes);
    }
  }
};

/*
 * Where a launch built with codegen.sweepBlock runs its blocks (plugins/codegen/sweepBlocks.ts)
 * rather than the launch as built without them: only with AVX-512 (without it the 8x8
 * transposes have no vector path and the blocks ran 2.7-5x slower than the default tiles),
 * and only where each thread's share of the domain is past ORCH_SWEEP_BLOCK_MIN_POINTS (its
 * fields no longer fit in L2: in cache, prefetching buys nothing and streaming stores push
 * the outputs out of it; -march=native, 1 thread: 24x24x72 blocks 1.1x slower, 32x32x80 1.1x
 * faster). Both paths give bitwise the same results: -D ORCH_SWEEP_BLOCKS=1 forces the
 * blocks (whatever the instruction set), =0 the fallback, for tests and measurements.
 */
#ifndef ORCH_SWEEP_BLOCK_MIN_POINTS
#define ORCH_SWEEP_BLOCK_MIN_POINTS 65536
#endif

inline bool sweep_blocks(int64_t points, int threads) {
#if defined(ORCH_SWEEP_BLOCKS)
  (void)points;
  (void)threads;
  return ORCH_SWEEP_BLOCKS != 0;
#elif defined(__AVX512F__)
  return points >= static_cast<int64_t>(ORCH_SWEEP_BLOCK_MIN_POINTS) * std::max(1, threads);
#else
  (void)points;
  (void)threads;
  return false;
#endif
}

/*
 * A plane stride for `points` elements per level: whole lines, plus one where the planes would
 * be a multiple of 2 KB apart (then the 8 levels of a transpose fall into a few L1 sets and
 * evict each other while a column is copied). Only there: a padded plane of a 32-column block
 * (256 B, the 8 levels in 8 sets) cost the hand kernel 11% (128x128x80, 1 thread, AVX-512).
 */
inline int64_t stage_plane(int64_t points) {
  const int64_t lines = (points + 7) / 8 * 8;
  return lines % 256 == 0 ? lines + 8 : lines;
}

}  // namespace orch

#endif
