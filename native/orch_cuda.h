/*
 * orch CUDA runtime: what the host side (.cpp) of a CUDA program library needs on top of
 * orch_runtime.h. Generated kernels (.cu) only include orch_runtime.h and
 * <cuda_runtime_api.h>; everything here runs on the host.
 *
 *   - `orch::cuda::State`, the handle: the error buffer, the stream every kernel of the
 *     program is queued on (in order), and a memory pool for temporaries and transients
 *     whose release threshold keeps memory between calls, so steady-state runs allocate
 *     nothing from the driver;
 *   - argument checks: a field's data must be device-accessible memory (checked once per
 *     new pointer), so a host pointer is an error message instead of a device fault;
 *   - launch and synchronization checks that report the program and the stencil;
 *   - the device error record, where kernels leave what the CPU build would report from
 *     inside its loops (a read at a variable K offset outside the array, a failed debug
 *     check), read back after the launch or at `sync` (kernels record with
 *     orch_cuda_device.h).
 *
 * `run` queues work and returns; `sync` waits for it. Faults inside a kernel (illegal
 * address ...) surface at the next synchronization; with the codegen option
 * `syncLaunches` every launch is synchronized so the message names the faulting stencil.
 */
#ifndef ORCH_CUDA_H
#define ORCH_CUDA_H

#include "orch_runtime.h"

#include <cuda_runtime_api.h>

#include <cstdint>
#include <cstdlib>

namespace orch {
namespace cuda {

/*
 * One recorded error. A kernel cannot stop the program or trap without leaving the CUDA
 * context unusable, so it records the error, skips what it cannot do safely, and goes on;
 * the host turns the entry into the CPU build's message with the program's generated
 * `report` function (which knows each `site`: a variable-K read or a debug check).
 */
struct ErrorEntry {
  int32_t site;
  /* variable-K read: the K index and the array's levels; debug check: the array indices */
  int64_t n[3];
  /* the compute point */
  int64_t i, j, k;
  /* debug check: the value that failed it */
  double value;
};

/* Log-mode debug reports kept per read-back (the CPU build prints the first 20 per run). */
constexpr unsigned kLoggedErrors = 20;

/*
 * The device error record a handle allocates once (when its program has sites). `stop`
 * holds the first error that ends the run (a variable-K read, an abort-mode check): first
 * to set `stopped` wins. `log` holds the first log-mode reports; `logged` counts them all.
 */
struct ErrorRecord {
  unsigned int stopped;
  unsigned int logged;
  ErrorEntry stop;
  ErrorEntry log[kLoggedErrors];
};

struct State;
/* Reports one entry as the CPU build would; nonzero when it ends the run. */
using ErrorReport = int (*)(State* st, const ErrorEntry& e);

struct State : orch::State {
  cudaStream_t stream = nullptr;
  /* Whether `stream` was created here (and is destroyed here), or set by the caller. */
  bool own_stream = false;
  cudaMemPool_t pool = nullptr;
  int device = -1;
  /* The device's multiprocessors (0: unknown), for launch sizes (orch::cuda::layers). */
  int multiprocessors = 0;
  /* What the last launch was, for messages about faults found at synchronization. */
  const char* last_launch = nullptr;
  /* Field pointers already checked to be device-accessible, by argument position (a plain
     array: std::vector's instantiations would be exported from every program library). */
  const void** checked = nullptr;
  int checked_count = 0;
  /* Device memory: where kernels record errors (null when the program has nothing to record). */
  ErrorRecord* errors = nullptr;

  ~State() {
    // Queued kernels may still use the pool's memory: drain the stream before freeing it.
    if (stream) cudaStreamSynchronize(stream);
    if (pool) cudaMemPoolDestroy(pool);
    if (errors) cudaFree(errors);
    if (own_stream && stream) cudaStreamDestroy(stream);
    std::free(checked);
  }
};

/* A failed CUDA call: where, what, and the runtime's own name and text for the error. */
inline int error(State* st, const char* where, const char* what, cudaError_t e) {
  return orch::fail(st, "%s: %s failed: %s (%s)", where, what, cudaGetErrorString(e), cudaGetErrorName(e));
}

/*
 * Creates the handle's stream and pool on the current device at the first run (not in
 * init, so a missing driver or device is an error message from run, not a null handle).
 * The stream is a blocking one: work the caller queued on the legacy default stream
 * (CuPy's default) finishes before the program's kernels start.
 */
inline int prepare(State* st, const char* program, bool error_record) {
  if (st->stream && st->pool && (st->errors || !error_record)) return 0;
  cudaError_t e;
  if (st->device < 0) {
    e = cudaGetDevice(&st->device);
    if (e != cudaSuccess) {
      st->device = -1;
      return error(st, program, "selecting a CUDA device", e);
    }
    // only sizes launches: without it every K level gets its own blocks
    if (cudaDeviceGetAttribute(&st->multiprocessors, cudaDevAttrMultiProcessorCount, st->device) != cudaSuccess) {
      st->multiprocessors = 0;
      cudaGetLastError();
    }
  }
  if (!st->stream) {
    e = cudaStreamCreate(&st->stream);
    if (e != cudaSuccess) {
      st->stream = nullptr;
      return error(st, program, "creating a CUDA stream", e);
    }
    st->own_stream = true;
  }
  if (!st->pool) {
    cudaMemPoolProps props{};
    props.allocType = cudaMemAllocationTypePinned;
    props.location.type = cudaMemLocationTypeDevice;
    props.location.id = st->device;
    e = cudaMemPoolCreate(&st->pool, &props);
    if (e != cudaSuccess) {
      st->pool = nullptr;
      return error(st, program, "creating a CUDA memory pool", e);
    }
    // Keep freed blocks in the pool: the temporaries of the next call reuse them.
    uint64_t keep = UINT64_MAX;
    e = cudaMemPoolSetAttribute(st->pool, cudaMemPoolAttrReleaseThreshold, &keep);
    if (e != cudaSuccess) return error(st, program, "configuring the CUDA memory pool", e);
  }
  if (error_record && !st->errors) {
    void* p = nullptr;
    e = cudaMalloc(&p, sizeof(ErrorRecord));
    if (e != cudaSuccess) return error(st, program, "allocating the device error record", e);
    e = cudaMemset(p, 0, sizeof(ErrorRecord));
    if (e != cudaSuccess) {
      cudaFree(p);
      return error(st, program, "clearing the device error record", e);
    }
    st->errors = static_cast<ErrorRecord*>(p);
  }
  return 0;
}

/*
 * Queues the program on `stream` from now on (e.g. CuPy's current stream), or on a stream
 * of its own again when `stream` is null. Work already queued on the old stream finishes
 * first, so nothing the program queued before overlaps what it queues after.
 */
inline int set_stream(State* st, const char* program, void* stream) {
  st->error[0] = '\0';
  if (st->stream) {
    cudaError_t e = cudaStreamSynchronize(st->stream);
    if (e != cudaSuccess) return error(st, program, "synchronizing the previous stream", e);
    if (st->own_stream) cudaStreamDestroy(st->stream);
  }
  st->stream = static_cast<cudaStream_t>(stream);
  st->own_stream = false;
  return 0;
}

/*
 * A field argument must be memory the device can address: device, managed or mapped host.
 * Messages name the program (`program`: "program 'name'") like the runtime's others.
 */
inline int check_device_arg(State* st, const char* program, int position, const char* name, const void* data) {
  if (!data) return 0;  // empty arrays (check_arg allows null data for them)
  if (position >= st->checked_count) {
    void* grown = std::realloc(st->checked, sizeof(const void*) * (position + 1));
    if (!grown) return orch::fail(st, "%s: out of memory checking argument '%s'", program, name);
    st->checked = static_cast<const void**>(grown);
    for (int n = st->checked_count; n <= position; ++n) st->checked[n] = nullptr;
    st->checked_count = position + 1;
  }
  if (st->checked[position] == data) return 0;
  cudaPointerAttributes attr{};
  cudaError_t e = cudaPointerGetAttributes(&attr, data);
  if (e != cudaSuccess) {
    cudaGetLastError();  // not sticky: clear it so it is not reported by a later launch
    return orch::fail(st, "%s: argument '%s': cannot query its pointer (%s); pass device memory", program, name,
                      cudaGetErrorString(e));
  }
  switch (attr.type) {
    case cudaMemoryTypeDevice:
      if (attr.device != st->device)
        return orch::fail(st, "%s: argument '%s' lives on device %d, but the program runs on device %d", program, name,
                          attr.device, st->device);
      break;
    case cudaMemoryTypeManaged:
      break;
    case cudaMemoryTypeHost:
      if (!attr.devicePointer)
        return orch::fail(st, "%s: argument '%s' is pinned host memory that is not mapped into the device", program,
                          name);
      break;
    default:
      return orch::fail(st,
                        "%s: argument '%s' is host memory; a CUDA build takes device arrays (CuPy, "
                        "cudaMalloc'ed or managed memory)",
                        program, name);
  }
  st->checked[position] = data;
  return 0;
}

/* After a launcher: records the launch and turns a launch error into a message. */
inline int launched(State* st, const char* where, int status, bool synchronize) {
  st->last_launch = where;
  cudaError_t e = static_cast<cudaError_t>(status);
  if (e == cudaSuccess && synchronize) e = cudaStreamSynchronize(st->stream);
  if (e != cudaSuccess) return error(st, where, synchronize ? "kernel" : "kernel launch", e);
  return 0;
}

/* A fault found at synchronization, reported with the last stencil launched. */
inline int fault(State* st, const char* where, cudaError_t e) {
  return orch::fail(st,
                    "%s: a kernel failed: %s (%s); the last launch was %s. Faults such as illegal "
                    "addresses leave the CUDA context unusable; rebuild with codegen.syncLaunches to "
                    "find the stencil",
                    where, cudaGetErrorString(e), cudaGetErrorName(e), st->last_launch ? st->last_launch : "none");
}

/*
 * Waits for the queued kernels and reads the error record back: log-mode reports go out
 * (through `report`, to stderr), then the error that ends the run, if any, becomes the
 * handle's message and a nonzero result. The record is cleared for the next launches.
 * Reading it costs one small copy, and only programs with sites have a record.
 */
inline int read_errors(State* st, const char* where, ErrorReport report) {
  if (!st->errors || !st->stream) return 0;
  unsigned counts[2] = {0, 0};  // stopped, logged: the record's head
  cudaError_t e = cudaMemcpyAsync(counts, st->errors, sizeof counts, cudaMemcpyDeviceToHost, st->stream);
  if (e == cudaSuccess) e = cudaStreamSynchronize(st->stream);
  if (e != cudaSuccess) return fault(st, where, e);
  if (!counts[0] && !counts[1]) return 0;
  ErrorRecord r;
  e = cudaMemcpy(&r, st->errors, sizeof r, cudaMemcpyDeviceToHost);
  if (e == cudaSuccess) e = cudaMemsetAsync(st->errors, 0, sizeof r, st->stream);
  if (e != cudaSuccess) return error(st, where, "reading the device error record", e);
  for (unsigned n = 0; n < r.logged && n < kLoggedErrors; ++n) report(st, r.log[n]);
  return r.stopped ? report(st, r.stop) : 0;
}

/*
 * Waits for everything `run` queued; reports a kernel fault with the last stencil launched,
 * and what the kernels recorded (`report`: the program's, see read_errors).
 */
inline int sync(State* st, const char* program, ErrorReport report) {
  st->error[0] = '\0';
  if (!st->stream) return 0;
  cudaError_t e = cudaStreamSynchronize(st->stream);
  if (e != cudaSuccess) return fault(st, program, e);
  return read_errors(st, program, report);
}

/* Blocks to launch for `n` points at `block` threads per block, capped at the grid limit. */
inline unsigned blocks(int64_t n, unsigned block, unsigned limit) {
  int64_t b = (n + block - 1) / block;
  return static_cast<unsigned>(b < 1 ? 1 : b > limit ? limit : b);
}

/*
 * Blocks along z for `nz` points, when x and y take `gxy` blocks: all of them, or (with the
 * device's multiprocessor count `sms` known) only enough for two waves of blocks at full
 * occupancy (2048 threads per multiprocessor). The kernels' grid-stride loops then give each
 * thread several K levels, so the per-thread setup (parameter loads, 64-bit index
 * arithmetic) is paid once per thread instead of once per point; at 192 x 192 x 80 it was
 * most of a 5-point stencil's instructions.
 */
inline unsigned layers(int64_t nz, dim3 block, unsigned gxy, int sms) {
  const unsigned all = blocks(nz, block.z, 65535u);
  if (sms <= 0) return all;
  const int64_t resident = 2048 / (int64_t)(block.x * block.y * block.z);
  const int64_t want = (int64_t)sms * (resident > 0 ? resident : 1) * 2;
  const int64_t z = (want + gxy - 1) / gxy;
  return z < (int64_t)all ? static_cast<unsigned>(z < 1 ? 1 : z) : all;
}

/*
 * A loop nest whose statements all sit in horizontal regions does nothing outside them:
 * narrows its range `r` {ilo, ihi, jlo, jhi} to the hull of the pieces where the `n`
 * region boxes {ilo, ihi, jlo, jhi} meet it, or to an empty range (no launch) when none
 * does. Region stencils otherwise launch a thread per point of the whole domain.
 */
inline void narrow_to_regions(int64_t* r, const int64_t (*boxes)[4], int n) {
  int64_t hull[4] = {INT64_MAX, INT64_MIN, INT64_MAX, INT64_MIN};
  for (int b = 0; b < n; ++b) {
    const int64_t ilo = r[0] > boxes[b][0] ? r[0] : boxes[b][0], ihi = r[1] < boxes[b][1] ? r[1] : boxes[b][1];
    const int64_t jlo = r[2] > boxes[b][2] ? r[2] : boxes[b][2], jhi = r[3] < boxes[b][3] ? r[3] : boxes[b][3];
    if (ihi <= ilo || jhi <= jlo) continue;
    if (ilo < hull[0]) hull[0] = ilo;
    if (ihi > hull[1]) hull[1] = ihi;
    if (jlo < hull[2]) hull[2] = jlo;
    if (jhi > hull[3]) hull[3] = jhi;
  }
  for (int d = 0; d < 4; ++d) r[d] = hull[d];
}

/* Threads of the last block along an extent of `n` that have no point (blocks `w` wide). */
inline int64_t idle_threads(int64_t n, unsigned w) { return (n + w - 1) / w * w - n; }

/*
 * The preset's block reshaped for the extents: while the block is at least twice as wide
 * as the extent along x, or half as wide a block leaves fewer threads idle at the end of
 * each row, half its x threads move to y (or z) where there are points for them, keeping
 * the block's size and at least one warp along x. A 24-wide domain then runs 32 x 8 blocks
 * instead of leaving most of a 128 x 2 block idle, and a 190-wide one 64 x 4 (192 threads
 * per row instead of 256).
 */
inline dim3 fit_block(dim3 b, int64_t nx, int64_t ny, int64_t nz) {
  while (b.x > 32 && (b.x / 2 >= nx || idle_threads(nx, b.x / 2) < idle_threads(nx, b.x))) {
    if (b.y < ny) b.y *= 2;
    else if (b.z < 64 && b.z < nz) b.z *= 2;
    else break;
    b.x /= 2;
  }
  return b;
}

/*
 * Owns one allocation from the handle's pool, zero-filled unless `zero` is false (analysis
 * proved every point is written before it is read: a transient's fill was a whole extra
 * write of the array per launch), freed in stream order when it goes out of scope (every
 * early `return` included). `Order...` lists the array's axis positions from slowest to
 * fastest, so temporaries get the layout the kernels' thread mapping reads coalesced (the
 * preset's loop order).
 */
template <int... Order>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  ~DeviceBuffer() { release(); }

  int allocate(State* st, const char* where, const char* name, orch_array& view, int rank, const int64_t* shape,
               size_t elem, bool zero) {
    release();
    constexpr int order[] = {Order..., 0};
    if (rank != static_cast<int>(sizeof...(Order)))
      return orch::fail(st, "%s: array '%s' has rank %d but its layout has %d axes", where, name, rank,
                        static_cast<int>(sizeof...(Order)));
    size_t count = 1;
    for (int d = 0; d < rank; ++d) {
      if (shape[d] < 0)
        return orch::fail(st, "%s: array '%s' has a negative extent %lld on axis %d", where, name,
                          (long long)shape[d], d);
      if (__builtin_mul_overflow(count, (size_t)shape[d], &count))
        return orch::fail(st, "%s: array '%s' is too large to allocate", where, name);
    }
    size_t bytes = 0;
    if (__builtin_mul_overflow(count ? count : 1, elem, &bytes))
      return orch::fail(st, "%s: array '%s' is too large to allocate", where, name);
    view = orch_array{};
    int64_t stride = 1;
    for (int n = rank - 1; n >= 0; --n) {
      const int d = order[n];
      view.shape[d] = shape[d];
      view.strides[d] = stride;
      stride *= shape[d] > 0 ? shape[d] : 1;
    }
    cudaError_t e = cudaMallocFromPoolAsync(&ptr_, bytes, st->pool, st->stream);
    if (e != cudaSuccess) {
      ptr_ = nullptr;
      return orch::fail(st, "%s: allocating array '%s' (%zu bytes) on the device failed: %s (%s)", where, name, bytes,
                        cudaGetErrorString(e), cudaGetErrorName(e));
    }
    stream_ = st->stream;
    if (zero) {
      e = cudaMemsetAsync(ptr_, 0, bytes, st->stream);
      if (e != cudaSuccess) return error(st, where, "zero-filling a temporary", e);
    }
    view.data = ptr_;
    return 0;
  }

 private:
  void release() {
    if (ptr_) cudaFreeAsync(ptr_, stream_);
    ptr_ = nullptr;
  }
  void* ptr_ = nullptr;
  cudaStream_t stream_ = nullptr;
};

}  // namespace cuda
}  // namespace orch

#endif  // ORCH_CUDA_H
