/*
 * orch CUDA device side: what generated kernels (.cu) use to record errors in the handle's
 * device error record (orch::cuda::ErrorRecord, orch_cuda.h) instead of trapping. The host
 * reads the record back after the launch (debug checks) or at `sync` and reports it with
 * the CPU build's message.
 */
#ifndef ORCH_CUDA_DEVICE_H
#define ORCH_CUDA_DEVICE_H

#include "orch_cuda.h"

namespace orch {
namespace cuda {

/* The entry for an error that ends the run, or null when another thread's came first. */
__device__ inline ErrorEntry* claim_stop(ErrorRecord* r) {
  return atomicCAS(&r->stopped, 0u, 1u) == 0u ? &r->stop : nullptr;
}

/* A free log entry, or null once the log is full (the plain read first spares the atomic then). */
__device__ inline ErrorEntry* claim_log(ErrorRecord* r) {
  if (*static_cast<volatile unsigned int*>(&r->logged) >= kLoggedErrors) return nullptr;
  const unsigned n = atomicAdd(&r->logged, 1u);
  return n < kLoggedErrors ? &r->log[n] : nullptr;
}

__device__ inline void fill(ErrorEntry* e, int site, int64_t n0, int64_t n1, int64_t n2, int64_t i, int64_t j,
                            int64_t k, double value) {
  e->site = site;
  e->n[0] = n0;
  e->n[1] = n1;
  e->n[2] = n2;
  e->i = i;
  e->j = j;
  e->k = k;
  e->value = value;
}

/*
 * base[idx * stride] when lo <= idx < hi (indices relative to the array's origin). Outside,
 * nothing is read: the result is 0, `failed` tells this thread's loops to end, and the
 * first such read of the run is recorded (site `site`) to end the run at the host.
 */
template <class T>
__device__ inline T vk_read(const T* base, int64_t stride, int64_t idx, int64_t lo, int64_t hi, ErrorRecord* errors,
                            bool& failed, int site, int64_t i, int64_t j, int64_t k) {
  if (idx >= lo && idx < hi) return base[idx * stride];
  failed = true;
  if (ErrorEntry* e = claim_stop(errors)) fill(e, site, idx - lo, hi - lo, 0, i, j, k, 0.0);
  return T{};
}

/* base[idx * stride] = value when lo <= idx < hi (a write at a variable K offset); outside, no store, as vk_read fails. */
template <class T, class V>
__device__ inline void vk_write(T* base, int64_t stride, int64_t idx, int64_t lo, int64_t hi, V value, ErrorRecord* errors,
                                bool& failed, int site, int64_t i, int64_t j, int64_t k) {
  if (idx >= lo && idx < hi) {
    base[idx * stride] = static_cast<T>(value);
    return;
  }
  failed = true;
  if (ErrorEntry* e = claim_stop(errors)) fill(e, site, idx - lo, hi - lo, 0, i, j, k, 0.0);
}

/* A failed debug check at array indices (n0, n1, n2): ends the run (abort) or is logged. */
__device__ inline void check_failed(ErrorRecord* errors, bool abort, int site, double value, int64_t n0, int64_t n1,
                                    int64_t n2, int64_t i, int64_t j, int64_t k) {
  if (ErrorEntry* e = abort ? claim_stop(errors) : claim_log(errors)) fill(e, site, n0, n1, n2, i, j, k, value);
}

}  // namespace cuda
}  // namespace orch

#endif  // ORCH_CUDA_DEVICE_H
