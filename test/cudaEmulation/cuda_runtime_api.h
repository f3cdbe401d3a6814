/*
 * Test support, not a runtime: just enough of the CUDA runtime API for the code orch's
 * CUDA backend generates (host .cpp and kernels .cu) to build with g++ and run on the CPU.
 * test/cudaEmulation.test.ts puts this folder first on the include path and rewrites each
 * `kernel<<<grid, block, 0, stream>>>(args)` into `orch_emulate_launch(kernel, grid,
 * block, args)`, which runs every block and thread one after another.
 *
 * Threads run in increasing order, or in decreasing order when ORCH_EMULATE_ORDER=reverse:
 * a kernel whose result depends on the order its threads run in (a missing barrier, a
 * race between columns) gives different results in the two orders, and at least one of
 * them differs from the interpreter. Pool allocations are filled with garbage, so a
 * temporary that is not zero-filled is noticed too.
 */
#ifndef ORCH_CUDA_EMULATION_H
#define ORCH_CUDA_EMULATION_H

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>

#define __global__
#define __host__
#define __device__
#define __launch_bounds__(n)

typedef enum cudaError { cudaSuccess = 0, cudaErrorInvalidValue = 1, cudaErrorMemoryAllocation = 2 } cudaError_t;
struct orch_emulated_stream;
typedef orch_emulated_stream* cudaStream_t;
struct orch_emulated_pool;
typedef orch_emulated_pool* cudaMemPool_t;

enum cudaMemAllocationType { cudaMemAllocationTypePinned = 1 };
enum cudaMemLocationType { cudaMemLocationTypeDevice = 1 };
struct cudaMemLocation {
  cudaMemLocationType type;
  int id;
};
struct cudaMemPoolProps {
  cudaMemAllocationType allocType;
  cudaMemLocation location;
};
enum cudaMemPoolAttr { cudaMemPoolAttrReleaseThreshold = 4 };
enum cudaMemoryType { cudaMemoryTypeUnregistered = 0, cudaMemoryTypeHost = 1, cudaMemoryTypeDevice = 2, cudaMemoryTypeManaged = 3 };
struct cudaPointerAttributes {
  cudaMemoryType type;
  int device;
  void* devicePointer;
  void* hostPointer;
};

struct dim3 {
  unsigned x, y, z;
  dim3(unsigned x_ = 1, unsigned y_ = 1, unsigned z_ = 1) : x(x_), y(y_), z(z_) {}
};
struct uint3 {
  unsigned x, y, z;
};

inline uint3 blockIdx, threadIdx;
inline dim3 blockDim, gridDim;

inline const char* cudaGetErrorString(cudaError_t e) { return e == cudaSuccess ? "no error" : "emulated CUDA error"; }
inline const char* cudaGetErrorName(cudaError_t e) { return e == cudaSuccess ? "cudaSuccess" : "cudaErrorEmulated"; }
inline cudaError_t cudaGetLastError() { return cudaSuccess; }
inline cudaError_t cudaGetDevice(int* device) {
  *device = 0;
  return cudaSuccess;
}
enum cudaDeviceAttr { cudaDevAttrMultiProcessorCount = 16 };
/* One multiprocessor: launches then cap their K blocks early, so kernels' grid-stride loops
   over K run more than once per thread even on the tests' small fields. */
inline cudaError_t cudaDeviceGetAttribute(int* value, cudaDeviceAttr attr, int) {
  if (attr != cudaDevAttrMultiProcessorCount) return cudaErrorInvalidValue;
  *value = 1;
  return cudaSuccess;
}
inline cudaError_t cudaStreamCreate(cudaStream_t* s) {
  *s = reinterpret_cast<cudaStream_t>(std::malloc(1));
  return cudaSuccess;
}
inline cudaError_t cudaStreamDestroy(cudaStream_t s) {
  std::free(s);
  return cudaSuccess;
}
inline cudaError_t cudaStreamSynchronize(cudaStream_t) { return cudaSuccess; }
inline cudaError_t cudaMemPoolCreate(cudaMemPool_t* pool, const cudaMemPoolProps*) {
  *pool = reinterpret_cast<cudaMemPool_t>(std::malloc(1));
  return cudaSuccess;
}
inline cudaError_t cudaMemPoolDestroy(cudaMemPool_t pool) {
  std::free(pool);
  return cudaSuccess;
}
inline cudaError_t cudaMemPoolSetAttribute(cudaMemPool_t, cudaMemPoolAttr, void*) { return cudaSuccess; }
inline cudaError_t cudaPointerGetAttributes(cudaPointerAttributes* attr, const void* ptr) {
  attr->type = cudaMemoryTypeDevice;
  attr->device = 0;
  attr->devicePointer = const_cast<void*>(ptr);
  attr->hostPointer = nullptr;
  return cudaSuccess;
}
inline cudaError_t cudaMallocFromPoolAsync(void** ptr, size_t bytes, cudaMemPool_t, cudaStream_t) {
  *ptr = std::malloc(bytes);
  if (!*ptr) return cudaErrorMemoryAllocation;
  std::memset(*ptr, 0x7F, bytes);  // about 1e306 as a double, 3e38 as a float: never mistaken for zero
  return cudaSuccess;
}
inline cudaError_t cudaFreeAsync(void* ptr, cudaStream_t) {
  std::free(ptr);
  return cudaSuccess;
}
inline cudaError_t cudaMemsetAsync(void* ptr, int value, size_t bytes, cudaStream_t) {
  std::memset(ptr, value, bytes);
  return cudaSuccess;
}
inline cudaError_t cudaMalloc(void** ptr, size_t bytes) {
  *ptr = std::malloc(bytes);
  if (!*ptr) return cudaErrorMemoryAllocation;
  std::memset(*ptr, 0x7F, bytes);
  return cudaSuccess;
}
inline cudaError_t cudaFree(void* ptr) {
  std::free(ptr);
  return cudaSuccess;
}
inline cudaError_t cudaMemset(void* ptr, int value, size_t bytes) {
  std::memset(ptr, value, bytes);
  return cudaSuccess;
}
enum cudaMemcpyKind { cudaMemcpyHostToHost = 0, cudaMemcpyHostToDevice = 1, cudaMemcpyDeviceToHost = 2, cudaMemcpyDeviceToDevice = 3 };
inline cudaError_t cudaMemcpy(void* dst, const void* src, size_t bytes, cudaMemcpyKind) {
  std::memcpy(dst, src, bytes);
  return cudaSuccess;
}
inline cudaError_t cudaMemcpy2D(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width, size_t height, cudaMemcpyKind) {
  for (size_t r = 0; r < height; ++r) std::memcpy(static_cast<char*>(dst) + r * dpitch, static_cast<const char*>(src) + r * spitch, width);
  return cudaSuccess;
}
inline cudaError_t cudaMemcpyAsync(void* dst, const void* src, size_t bytes, cudaMemcpyKind, cudaStream_t) {
  std::memcpy(dst, src, bytes);
  return cudaSuccess;
}

/* Device atomics: threads run one at a time here, so plain read-modify-writes are atomic. */
inline unsigned atomicCAS(unsigned* address, unsigned compare, unsigned value) {
  const unsigned old = *address;
  if (old == compare) *address = value;
  return old;
}
inline unsigned atomicAdd(unsigned* address, unsigned value) {
  const unsigned old = *address;
  *address = old + value;
  return old;
}

/* Runs every (block, thread) of the grid, in increasing or (ORCH_EMULATE_ORDER=reverse) decreasing order. */
template <class... Params, class... Args>
inline void orch_emulate_launch(void (*kernel)(Params...), dim3 grid, dim3 block, Args... args) {
  const char* order = std::getenv("ORCH_EMULATE_ORDER");
  const bool reverse = order && std::strcmp(order, "reverse") == 0;
  gridDim = grid;
  blockDim = block;
  const uint64_t blocks = uint64_t(grid.x) * grid.y * grid.z;
  const uint64_t threads = uint64_t(block.x) * block.y * block.z;
  for (uint64_t b = 0; b < blocks; ++b) {
    const uint64_t bb = reverse ? blocks - 1 - b : b;
    blockIdx = uint3{unsigned(bb % grid.x), unsigned(bb / grid.x % grid.y), unsigned(bb / grid.x / grid.y)};
    for (uint64_t t = 0; t < threads; ++t) {
      const uint64_t tt = reverse ? threads - 1 - t : t;
      threadIdx = uint3{unsigned(tt % block.x), unsigned(tt / block.x % block.y), unsigned(tt / block.x / block.y)};
      kernel(args...);
    }
  }
}

#endif  // ORCH_CUDA_EMULATION_H
