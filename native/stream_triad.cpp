// STREAM triad (a[i] = b[i] + s * c[i]) with OpenMP: the memory bandwidth the benchmark
// suite compares generated code against. Prints one JSON line: best GB/s over the trials,
// counting 3 * 8 bytes per element as STREAM does.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <omp.h>
#include <vector>

int main(int argc, char** argv) {
  const long n = argc > 1 ? std::atol(argv[1]) : (1L << 25);
  const int trials = argc > 2 ? std::atoi(argv[2]) : 10;
  double* a = static_cast<double*>(std::aligned_alloc(64, n * sizeof(double)));
  double* b = static_cast<double*>(std::aligned_alloc(64, n * sizeof(double)));
  double* c = static_cast<double*>(std::aligned_alloc(64, n * sizeof(double)));
#pragma omp parallel for schedule(static)
  for (long i = 0; i < n; i++) {  // first touch by the threads that use the pages
    a[i] = 0.0;
    b[i] = 1.0;
    c[i] = 2.0;
  }
  const double s = 3.0;
  double best = 1e30;
  for (int t = 0; t < trials; t++) {
    auto t0 = std::chrono::steady_clock::now();
#pragma omp parallel for schedule(static)
    for (long i = 0; i < n; i++) a[i] = b[i] + s * c[i];
    double dt = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (t > 0 && dt < best) best = dt;  // the first trial warms up
  }
  double check = 0.0;
  for (long i = 0; i < n; i += n / 16) check += a[i];
  std::printf("{\"threads\": %d, \"n\": %ld, \"best_s\": %.9f, \"gbps\": %.3f, \"check\": %.1f}\n", omp_get_max_threads(), n, best,
              3.0 * 8.0 * n / best / 1e9, check);
  std::free(a);
  std::free(b);
  std::free(c);
  return 0;
}
