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
  const int64_t nj4 = nj / 4 * 4, nk4 = nk / 4 * 4;
  for (int64_t i = 0; i < ni; ++i) {
    double* const frow = field + i * s0;
    double* const srow = staged + i * rs;
    for (int64_t j = 0; j < nj4; j += 4) {
      for (int64_t k = 0; k < nk4; k += 4) {
        if (in) stage_transpose4(srow + k * sk + j, sk, frow + j * s1 + k, s1);
        else stage_transpose4(frow + j * s1 + k, s1, srow + k * sk + j, sk);
      }
      for (int64_t jj = j; jj < j + 4; ++jj)
        for (int64_t k = nk4; k < nk; ++k) {
          if (in) srow[k * sk + jj] = frow[jj * s1 + k];
          else frow[jj * s1 + k] = srow[k * sk + jj];
        }
    }
    for (int64_t j = nj4; j < nj; ++j)
      for (int64_t k = 0; k < nk; ++k) {
        if (in) srow[k * sk + j] = frow[j * s1 + k];
        else frow[j * s1 + k] = srow[k * sk + j];
      }
  }
}

/* A plane stride for `points` elements per level that is not a multiple of 4 KB apart
   (levels an L1 set apart would evict each other while a column is copied): whole lines, plus one. */
inline int64_t stage_plane(int64_t points) { return (points + 7) / 8 * 8 + 8; }

}  // namespace orch

#endif
