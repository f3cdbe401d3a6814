/*
 * orch runtime: the only header generated program libraries include.
 *
 * It holds what every generated library needs and nothing else:
 *   - `orch_array`, the one array type that crosses the C ABI;
 *   - Python/numpy semantics that C++ does not give for free (floor division, modulo,
 *     integer power, wrapping integer arithmetic, saturating float->int casts), so a
 *     compiled program matches the orch interpreter bit for bit;
 *   - the per-handle error buffer and the messages `run` reports instead of crashing.
 *
 * The C part (orch_array) is usable from C and ctypes; the rest is C++17.
 */
#ifndef ORCH_RUNTIME_H
#define ORCH_RUNTIME_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * An array argument. `shape` and `strides` are in ELEMENTS (not bytes), one entry per
 * array axis in storage order (e.g. an IJ array uses entries 0 and 1); unused entries are 0.
 */
typedef struct orch_array {
  void* data;
  int64_t shape[3];
  int64_t strides[3];
} orch_array;

/*
 * `<sym>_run_bound(const orch_bound* bound, const void* const* objects)` (an addition to
 * abi 2; `<sym>_run` is unchanged): a caller that binds its arguments once describes the
 * call (handle, argument block) and each field argument (one `orch_watch`) in an
 * `orch_bound`, and the library compares them before running instead of the caller, in
 * one C call of two arguments. `object` is the caller's handle for
 * the bound argument (e.g. a Python object's address), compared with the one passed at the
 * call; `head` and `block` are memory that must still equal the snapshots `head_saved` and
 * `block_saved` (e.g. the array object's header and its shape/strides block). `block` is
 * read only when the head is unchanged (the head may point to it). A null `object` is
 * never unchanged. On any difference `run_bound` runs nothing and returns ORCH_REBIND: the
 * caller checks and rebinds its arguments, then calls `run`.
 */
typedef struct orch_watch {
  const void* object;
  const void* head;
  const void* head_saved;
  int64_t head_size;
  const void* block;
  const void* block_saved;
  int64_t block_size;
} orch_watch;

typedef struct orch_bound {
  void* handle;             /* from <sym>_init */
  void* const* args;        /* the argument block of <sym>_run */
  const orch_watch* watch;  /* one per field argument */
  int64_t count;            /* how many */
} orch_bound;

/* What `run_bound` returns when a watched argument changed (`run` never returns it). */
#define ORCH_REBIND (-1)

#ifdef __cplusplus
}  // extern "C"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdarg>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <new>
#include <type_traits>

/* Loops with fewer points than this stay serial: a parallel region costs microseconds. */
#ifndef ORCH_OMP_MIN_POINTS
#define ORCH_OMP_MIN_POINTS 32768
#endif

/* The numeric helpers below are also called from CUDA kernels (plugins/codegen/cudaKernels.ts). */
#ifdef __CUDACC__
#define ORCH_HD __host__ __device__
#else
#define ORCH_HD
#endif

namespace orch {

/* Grow-only memory reused across calls (pooling): transients and temporaries are placed
   at offsets computed by the pooling pass, so a call allocates nothing once warm. */
class Arena {
 public:
  Arena() = default;
  Arena(const Arena&) = delete;
  Arena& operator=(const Arena&) = delete;
  ~Arena() { std::free(base_); }
  /* Makes room for `bytes`; addresses from before a growth are invalid after it. */
  bool ensure(size_t bytes) {
    if (bytes <= size_) return true;
    void* p = std::aligned_alloc(64, (bytes + 63) / 64 * 64);
    if (!p) return false;
    std::free(base_);
    base_ = p;
    size_ = bytes;
    return true;
  }
  char* base() const { return static_cast<char*>(base_); }
  size_t size() const { return size_; }

 private:
  void* base_ = nullptr;
  size_t size_ = 0;
};

/* Tile-local arrays of tiled launches (tiling pass): one grow-only arena per thread, so
   each thread places its tile's arrays without locks and a warm call allocates nothing. */
class TileScratch {
 public:
  TileScratch() = default;
  TileScratch(const TileScratch&) = delete;
  TileScratch& operator=(const TileScratch&) = delete;
  ~TileScratch() { delete[] arenas_; }
  /* Room for `threads` arenas; nonzero when out of memory. Call outside parallel regions. */
  int prepare(int threads) {
    if (threads <= count_) return 0;
    Arena* more = new (std::nothrow) Arena[threads];
    if (!more) return 1;
    delete[] arenas_;
    arenas_ = more;
    count_ = threads;
    return 0;
  }
  Arena& of(int thread) { return arenas_[thread]; }

 private:
  Arena* arenas_ = nullptr;
  int count_ = 0;
};

/* The calling thread's index in the current parallel region, and the region's largest size. */
inline int thread_index();
inline int max_threads();

/* What a handle from `<sym>_init` points to. One run at a time per handle. */
struct State {
  char error[1024];
  Arena transients;
  Arena temporaries;
  TileScratch tiles;
  /* debug checks (debug insertion): set by the first failing check in abort mode */
  int debug_failed = 0;
  int debug_logged = 0;
};

/* Whether every watched argument is the bound one, unchanged (see orch_watch). */
inline bool watch_unchanged(const orch_watch* watch, int64_t count, const void* const* objects) {
  if (count > 0 && (!watch || !objects)) return false;
  for (int64_t n = 0; n < count; ++n) {
    const orch_watch& w = watch[n];
    if (!w.object || objects[n] != w.object) return false;
    if (w.head_size > 0 && std::memcmp(w.head, w.head_saved, (size_t)w.head_size) != 0) return false;
    if (w.block_size > 0 && std::memcmp(w.block, w.block_saved, (size_t)w.block_size) != 0) return false;
  }
  return true;
}

/* Records a printf-style message in the handle and returns the nonzero status of `run`. */
__attribute__((format(printf, 2, 3))) inline int fail(State* st, const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  std::vsnprintf(st->error, sizeof st->error, fmt, ap);
  va_end(ap);
  return 1;
}

/*
 * An access outside an array: names the array, the axis, the index range and the shape.
 * `head` and `tail` locate it at the launch's call and add the hint
 * (core/runtime/locatedError.ts), so it reaches users as a located diagnostic.
 */
inline int bounds_error(State* st, const char* head, const char* tail, const char* array, const char* axis,
                        int64_t lo, int64_t hi, const orch_array& a, int rank) {
  char shape[96];
  int n = std::snprintf(shape, sizeof shape, "[");
  for (int d = 0; d < rank && n > 0 && n < (int)sizeof shape; ++d)
    n += std::snprintf(shape + n, sizeof shape - n, d ? ", %lld" : "%lld", (long long)a.shape[d]);
  if (n > 0 && n < (int)sizeof shape) std::snprintf(shape + n, sizeof shape - n, "]");
  return fail(st, "%s: array '%s' is accessed at %s indices [%lld, %lld], outside its shape %s%s", head, array, axis,
              (long long)lo, (long long)hi, shape, tail);
}

/*
 * Reads at a variable K offset (`f[0, 0, lev]`) cannot be checked before a launch. Each is
 * checked as it happens: an index outside the array reads nothing (0) and records the
 * first such read, from any thread; the launch then returns this error instead of a result.
 * `head` and `tail` are the message around the numbers (see core/runtime/locatedError.ts).
 */
struct VarKError {
  std::atomic<bool> set{false};
  const char* head = "";
  const char* tail = "";
  /* what the extent counts: "levels" (K), "entries" (a data dimension) */
  const char* unit = "levels";
  int64_t index = 0, extent = 0, i = 0, j = 0, k = 0;
  void record(const char* h, const char* t, int64_t idx, int64_t n, int64_t pi, int64_t pj, int64_t pk,
              const char* u = "levels") {
    bool expected = false;
    if (set.compare_exchange_strong(expected, true)) {
      head = h;
      tail = t;
      unit = u;
      index = idx;
      extent = n;
      i = pi;
      j = pj;
      k = pk;
    }
  }
  /* A failure whose message is whole (a while loop past its bound), not a variable-K read. */
  const char* message = nullptr;
  void record_message(const char* m) {
    bool expected = false;
    if (set.compare_exchange_strong(expected, true)) message = m;
  }
  /* Call after the loops (the parallel region's barrier publishes the recorded fields). */
  int report(State* st) const;
};

/* The message of a read at a variable K offset outside the array (CPU and CUDA builds). */
inline int vk_report(State* st, const char* head, const char* tail, int64_t index, int64_t extent, int64_t i,
                     int64_t j, int64_t k, const char* unit = "levels") {
  return fail(st, "%s%lld, outside its %lld %s (compute point %lld, %lld, %lld)%s", head, (long long)index,
              (long long)extent, unit, (long long)i, (long long)j, (long long)k, tail);
}

inline int VarKError::report(State* st) const {
  return message ? fail(st, "%s", message) : vk_report(st, head, tail, index, extent, i, j, k, unit);
}

/*
 * base[idx * stride] when lo <= idx < hi (indices relative to the array's origin), else 0.
 * Also a data index computed at run time (lo 0, hi the extent, unit "entries").
 */
template <class T>
inline T vk_read(const T* base, int64_t stride, int64_t idx, int64_t lo, int64_t hi, VarKError& err,
                 const char* head, const char* tail, int64_t i, int64_t j, int64_t k, const char* unit = "levels") {
  if (__builtin_expect(idx >= lo && idx < hi, 1)) return base[idx * stride];
  err.record(head, tail, idx - lo, hi - lo, i, j, k, unit);
  return T{};
}

/* base[idx * stride] = value when lo <= idx < hi (a write at a variable K offset), else no store and an error. */
template <class T, class V>
inline void vk_write(T* base, int64_t stride, int64_t idx, int64_t lo, int64_t hi, V value, VarKError& err,
                     const char* head, const char* tail, int64_t i, int64_t j, int64_t k) {
  if (__builtin_expect(idx >= lo && idx < hi, 1)) {
    base[idx * stride] = static_cast<T>(value);
    return;
  }
  err.record(head, tail, idx - lo, hi - lo, i, j, k, "levels");
}

/* Validates an array argument before any access: extents >= 0, data present when non-empty. */
inline int check_arg(State* st, const char* name, const orch_array& a, int rank) {
  int64_t count = 1;
  for (int d = 0; d < rank; ++d) {
    if (a.shape[d] < 0) return fail(st, "argument '%s' has a negative extent on axis %d", name, d);
    count = a.shape[d] == 0 ? 0 : count;
  }
  if (count != 0 && a.data == nullptr) return fail(st, "argument '%s' has a null data pointer", name);
  return 0;
}

/* Grows an arena once for everything placed in it next (placing never grows it, so no
   placed array can be moved by a later placement). */
inline int reserve(State* st, Arena& arena, const char* where, int64_t bytes) {
  if (bytes < 0) return fail(st, "%s: invalid pool size %lld", where, (long long)bytes);
  if (!arena.ensure(static_cast<size_t>(bytes) + 64))
    return fail(st, "%s: out of memory growing the pool to %lld bytes", where, (long long)bytes);
  return 0;
}

/* Places a pooled array at `offset` in `arena` (reserved before) as a C-contiguous view;
   zero-fills it when the pooling pass could not prove every point is written before read. */
inline int place(State* st, Arena& arena, const char* where, const char* name, orch_array& view, int rank,
                 const int64_t* shape, size_t elem, int64_t offset, int64_t end, bool zero) {
  if (offset < 0 || end < offset || static_cast<size_t>(end) > arena.size())
    return fail(st, "%s: array '%s' has an invalid pool slot [%lld, %lld)", where, name, (long long)offset, (long long)end);
  for (int d = 0; d < rank; ++d)
    if (shape[d] < 0)
      return fail(st, "%s: array '%s' has a negative extent %lld on axis %d", where, name, (long long)shape[d], d);
  view = orch_array{};
  int64_t stride = 1, count = 1;
  for (int d = rank - 1; d >= 0; --d) {
    view.shape[d] = shape[d];
    view.strides[d] = stride;
    stride *= shape[d] > 0 ? shape[d] : 1;
    count *= shape[d];
  }
  view.data = arena.base() + offset;
  if (zero && count > 0) std::memset(view.data, 0, static_cast<size_t>(count) * elem);
  return 0;
}

/* A failed debug check: in abort mode the first report is kept and the call fails after the
   loop nest; in log mode reports go to stderr (the first 20) and the run continues. */
inline void debug_report(State* st, bool abort_mode, const char* msg) {
#pragma omp critical(orch_debug)
  {
    if (abort_mode) {
      if (!st->debug_failed) std::snprintf(st->error, sizeof st->error, "%s", msg);
      st->debug_failed = 1;
    } else if (st->debug_logged++ < 20) {
      std::fprintf(stderr, "%s\n", msg);
    }
  }
}

/* Owns one allocation, zero-filled unless `zero` is false (analysis proved every point is
   written before it is read); RAII so every early `return` on error frees it. */
class Buffer {
 public:
  Buffer() = default;
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  ~Buffer() { std::free(ptr_); }
  void* get() const { return ptr_; }
  /* Allocates `shape` (rank entries) C-contiguous into `view`; returns 0 or fails `st`. */
  int allocate(State* st, const char* where, const char* name, orch_array& view, int rank, const int64_t* shape,
               size_t elem, bool zero) {
    std::free(ptr_);
    ptr_ = nullptr;
    size_t count = 1;
    for (int d = 0; d < rank; ++d) {
      if (shape[d] < 0) return fail(st, "%s: array '%s' has a negative extent %lld on axis %d", where, name,
                                    (long long)shape[d], d);
      if (__builtin_mul_overflow(count, (size_t)shape[d], &count))
        return fail(st, "%s: array '%s' is too large to allocate", where, name);
    }
    view = orch_array{};
    int64_t stride = 1;
    for (int d = rank - 1; d >= 0; --d) {
      view.shape[d] = shape[d];
      view.strides[d] = stride;
      stride *= shape[d] > 0 ? shape[d] : 1;
    }
    // calloc(0) may return null legitimately; allocate one element so data is never null.
    size_t bytes = 0;
    if (__builtin_mul_overflow(count ? count : 1, elem, &bytes))
      return fail(st, "%s: array '%s' is too large to allocate", where, name);
    ptr_ = zero ? std::calloc(count ? count : 1, elem) : std::malloc(bytes);
    if (!ptr_) return fail(st, "%s: out of memory allocating array '%s' (%zu elements)", where, name, count);
    view.data = ptr_;
    return 0;
  }

 private:
  void* ptr_ = nullptr;
};

/* Signed overflow is undefined in C++ but wraps in numpy: do integer + - * unary- in unsigned. */
template <class T>
ORCH_HD inline T iadd(T a, T b) {
  using U = std::make_unsigned_t<T>;
  return static_cast<T>(static_cast<U>(a) + static_cast<U>(b));
}
template <class T>
ORCH_HD inline T isub(T a, T b) {
  using U = std::make_unsigned_t<T>;
  return static_cast<T>(static_cast<U>(a) - static_cast<U>(b));
}
template <class T>
ORCH_HD inline T imul(T a, T b) {
  using U = std::make_unsigned_t<T>;
  return static_cast<T>(static_cast<U>(a) * static_cast<U>(b));
}
template <class T>
ORCH_HD inline T ineg(T a) {
  using U = std::make_unsigned_t<T>;
  return static_cast<T>(U(0) - static_cast<U>(a));
}
template <class T>
ORCH_HD inline T iabs(T a) {
  return a < 0 ? ineg(a) : a;
}

/* Python floor division. Division by zero gives 0 (numpy) instead of SIGFPE; MIN // -1 wraps. */
template <class T>
ORCH_HD inline T floordiv(T a, T b) {
  if (b == 0) return 0;
  if (b == -1) return ineg(a);
  T q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}

/* Python modulo: the result has the sign of the divisor. x % 0 gives 0 (numpy). */
template <class T>
ORCH_HD inline T imod(T a, T b) {
  if (b == 0 || b == -1) return 0;
  T r = a % b;
  if (r != 0 && ((r < 0) != (b < 0))) r += b;
  return r;
}
template <class T>
ORCH_HD inline T fmod_py(T a, T b) {
  T r = std::fmod(a, b);
  if (r != 0 && ((r < 0) != (b < 0))) r += b;
  return r;
}

/* Integer power by squaring, wrapping. A negative exponent gives the truncated real result. */
template <class T>
ORCH_HD inline T ipow(T base, T exp) {
  if (exp < 0) {
    if (base == 1) return 1;
    if (base == -1) return (exp % 2 == 0) ? 1 : -1;
    return 0;
  }
  T result = 1;
  while (exp > 0) {
    if (exp & 1) result = imul(result, base);
    exp >>= 1;
    if (exp) base = imul(base, base);
  }
  return result;
}

/* Python's min/max argument order (first wins on ties, NaN propagates from the first). */
template <class T>
ORCH_HD inline T min(T a, T b) {
  return b < a ? b : a;
}
template <class T>
ORCH_HD inline T max(T a, T b) {
  return a < b ? b : a;
}

/* float -> int: truncation toward zero, saturating, NaN -> 0 (C++ leaves these undefined). */
template <class T, class F>
ORCH_HD inline T ftoi(F x) {
  if (x != x) return 0;
  if (x <= static_cast<F>(std::numeric_limits<T>::min())) return std::numeric_limits<T>::min();
  if (x >= static_cast<F>(std::numeric_limits<T>::max())) return std::numeric_limits<T>::max();
  return static_cast<T>(x);
}

}  // namespace orch

#ifdef _OPENMP
#include <dlfcn.h>
#include <omp.h>
inline int orch::thread_index() { return omp_get_thread_num(); }
inline int orch::max_threads() { return omp_get_max_threads(); }
namespace {
/*
 * Program libraries are dlopen'ed (koffi, ctypes) and may be dlclose'd. The OpenMP runtime
 * comes in as their dependency, but its worker threads outlive every parallel region:
 * unmapping it under them crashes the host process (at close, or at exit). Loading the
 * runtime once more with RTLD_NODELETE keeps it mapped for the life of the process.
 */
__attribute__((constructor)) void orch_pin_openmp_runtime() {
  Dl_info info;
  if (dladdr(reinterpret_cast<void*>(&omp_get_max_threads), &info) && info.dli_fname)
    dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE);
}
}  // namespace
#else
inline int orch::thread_index() { return 0; }
inline int orch::max_threads() { return 1; }
#endif

#endif  // __cplusplus
#endif  // ORCH_RUNTIME_H
