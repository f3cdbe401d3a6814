/*
 * STREAM triad on the device, a[i] = b[i] + s * c[i]: the bandwidth reference that
 * bench/gpuBench.ts divides effective program bandwidth by. Built by the benchmark with
 * the same nvcc and architecture as the programs it measures, and measured in the same
 * run. Not part of program libraries.
 */
#include <cuda_runtime_api.h>

#include <cstdint>
#include <cstdio>

namespace {

__global__ void triad(double* __restrict__ a, const double* __restrict__ b, const double* __restrict__ c, double s,
                      int64_t n) {
  for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x)
    a[i] = b[i] + s * c[i];
}

__global__ void fill(double* __restrict__ p, double v, int64_t n) {
  for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x) p[i] = v;
}

int report(char* error, int len, const char* what, cudaError_t e) {
  std::snprintf(error, len, "%s: %s (%s)", what, cudaGetErrorString(e), cudaGetErrorName(e));
  return 1;
}

}  // namespace

/*
 * Best of `reps` triads over `n` doubles per array, in bytes per second (3 * 8 * n bytes
 * moved per triad). Returns 0, or 1 with a message in `error`.
 */
extern "C" __attribute__((visibility("default"))) int orch_triad(int64_t n, int reps, double* bytes_per_s, char* error,
                                                                 int error_len) {
  double *a = nullptr, *b = nullptr, *c = nullptr;
  cudaEvent_t start = nullptr, stop = nullptr;
  const size_t bytes = sizeof(double) * (size_t)n;
  int device = 0, sms = 0;
  cudaError_t e = cudaGetDevice(&device);
  if (e == cudaSuccess) e = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
  if (e != cudaSuccess) return report(error, error_len, "querying the device", e);
  // Enough blocks to fill every SM several times; the grid-stride loop covers the rest.
  const unsigned threads = 256, blocks = (unsigned)(sms * 32);
  int rc = 0;
  float best = 0;
  if ((e = cudaMalloc(&a, bytes)) != cudaSuccess || (e = cudaMalloc(&b, bytes)) != cudaSuccess ||
      (e = cudaMalloc(&c, bytes)) != cudaSuccess) {
    rc = report(error, error_len, "allocating the triad arrays", e);
    goto done;
  }
  fill<<<blocks, threads>>>(a, 0.0, n);
  fill<<<blocks, threads>>>(b, 1.0, n);
  fill<<<blocks, threads>>>(c, 2.0, n);
  triad<<<blocks, threads>>>(a, b, c, 3.0, n);  // warm up
  if ((e = cudaEventCreate(&start)) != cudaSuccess || (e = cudaEventCreate(&stop)) != cudaSuccess ||
      (e = cudaDeviceSynchronize()) != cudaSuccess) {
    rc = report(error, error_len, "preparing the triad", e);
    goto done;
  }
  for (int r = 0; r < reps; ++r) {
    float ms = 0;
    cudaEventRecord(start);
    triad<<<blocks, threads>>>(a, b, c, 3.0, n);
    cudaEventRecord(stop);
    if ((e = cudaEventSynchronize(stop)) != cudaSuccess || (e = cudaEventElapsedTime(&ms, start, stop)) != cudaSuccess) {
      rc = report(error, error_len, "timing the triad", e);
      goto done;
    }
    if (best == 0 || ms < best) best = ms;
  }
  *bytes_per_s = 3.0 * (double)bytes / (best * 1e-3);
done:
  if (start) cudaEventDestroy(start);
  if (stop) cudaEventDestroy(stop);
  cudaFree(a);
  cudaFree(b);
  cudaFree(c);
  return rc;
}
