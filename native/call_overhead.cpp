// Per-call overhead of a program library called from C: loads a library built from a
// stencil with F float64 IJK fields (bench/callOverhead fixtures), binds 1x1x1 fields once
// and times N calls of run. Prints one JSON line.
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <dlfcn.h>
#include <string>
#include <vector>

#include "orch_runtime.h"

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: call_overhead LIB SYMBOL FIELDS [CALLS]\n");
    return 2;
  }
  const std::string sym = argv[2];
  const int nfields = std::atoi(argv[3]);
  const long calls = argc > 4 ? std::atol(argv[4]) : 200000;
  void* so = dlopen(argv[1], RTLD_NOW);
  if (!so) {
    std::fprintf(stderr, "%s\n", dlerror());
    return 1;
  }
  auto init = reinterpret_cast<void* (*)()>(dlsym(so, (sym + "_init").c_str()));
  auto run = reinterpret_cast<int (*)(void*, void* const*)>(dlsym(so, (sym + "_run").c_str()));
  auto fini = reinterpret_cast<void (*)(void*)>(dlsym(so, (sym + "_exit").c_str()));
  if (!init || !run || !fini) {
    std::fprintf(stderr, "missing symbols for %s\n", sym.c_str());
    return 1;
  }
  // ABI order of a stencil entry: fields, then domain I/J/K, then one origin per field axis
  std::vector<double> data(nfields, 1.0);
  std::vector<orch_array> arrays(nfields);
  std::vector<int64_t> scalars(3 + 3 * nfields, 0);
  for (int d = 0; d < 3; d++) scalars[d] = 1;
  std::vector<void*> args;
  for (int f = 0; f < nfields; f++) {
    arrays[f] = orch_array{&data[f], {1, 1, 1}, {1, 1, 1}};
    args.push_back(&arrays[f]);
  }
  for (auto& s : scalars) args.push_back(&s);
  void* h = init();
  for (int w = 0; w < 1000; w++) run(h, args.data());
  auto t0 = std::chrono::steady_clock::now();
  for (long c = 0; c < calls; c++) run(h, args.data());
  double dt = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  fini(h);
  std::printf("{\"fields\": %d, \"calls\": %ld, \"ns_per_call\": %.1f}\n", nfields, calls, dt / calls * 1e9);
  return 0;
}
