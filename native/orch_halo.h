/*
 * Halo exchange of a compiled program (docs/mpi.md), included by generated code of
 * programs that call halo_update. Built with -DORCH_MPI (compiler.mpi in the preset or
 * config) it exchanges with MPI_Isend/MPI_Irecv among the ranks of MPI_COMM_WORLD;
 * without it, the run is one rank and a periodic tile exchanges with itself.
 *
 * The neighbour table follows NDSL's TilePartitioner (rank r of a tile at column r % x,
 * row r / x) and matches core/layout/HaloTopology.ts, which the interpreter's simulation
 * uses: directions W, E, S, N, SW, SE, NW, NE; strips walked I, then J, then K. The run's
 * layout is $ORCH_LAYOUT (NXxNY, default 1x1) and its tile boundary $ORCH_BOUNDARY
 * (`edges`, the default, or `periodic`).
 *
 * A blocking halo_update sends and receives in place through MPI derived datatypes (one
 * struct of hvectors per neighbour, kept while the arrays stay where they are); a split
 * start/wait packs into buffers, so that writes between them are not sent and the halo
 * changes only at the wait. -DORCH_HALO_PACK packs every exchange. docs/mpi.md has the
 * measurement that chose in-place updates.
 *
 * In a CUDA build (orch_cuda.h included before this header) the arrays are device memory: the strips are staged through host
 * buffers by the copy engine (cudaMemcpy2D, one call per I plane of a box, on the legacy
 * default stream, which orders itself with the handle's blocking stream: the kernels
 * before a start have finished writing, the kernels after a wait see the halo), and MPI
 * moves host memory, so no CUDA-aware MPI is needed.
 */
#ifndef ORCH_HALO_H
#define ORCH_HALO_H

#include "orch_runtime.h"

#include <cstdlib>
#include <cstring>
#include <vector>

#ifdef ORCH_MPI
#include <dlfcn.h>
// the C API only: the deprecated C++ bindings would need libmpi_cxx
#define OMPI_SKIP_MPICXX 1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>
#endif

#if defined(ORCH_MPI) && !defined(ORCH_HALO_PACK) && !defined(ORCH_CUDA_H)
#define ORCH_HALO_IN_PLACE 1  // device arrays would need CUDA-aware MPI
#endif

namespace orch {
namespace halo {

constexpr int kDirections = 8;
constexpr int kDir[kDirections][2] = {{-1, 0}, {1, 0}, {0, -1}, {0, 1}, {-1, -1}, {1, -1}, {-1, 1}, {1, 1}};

inline int opposite(int d) {
  for (int e = 0; e < kDirections; ++e)
    if (kDir[e][0] == -kDir[d][0] && kDir[e][1] == -kDir[d][1]) return e;
  return -1;
}

/* A neighbour rank; `rotation` (quarter turns) is 0 on one tile, the cubed sphere's to fill. */
struct Neighbour {
  int rank = -1;
  int rotation = 0;
};

struct Topology {
  bool ready = false;
  int rank = 0, size = 1, lx = 1, ly = 1;
  bool periodic = false;
  Neighbour nb[kDirections];
};

#ifdef ORCH_MPI
/* Finalizes MPI at exit only when this library initialized it (never a host's MPI). */
inline void finalize_ours() {
  int done = 0;
  MPI_Finalized(&done);
  if (!done) MPI_Finalize();
}
#endif

/* Reads the layout and this rank once per handle; fails (with the handle's error) on a mismatch. */
inline int topology(State* st, Topology& t) {
  if (t.ready) return 0;
  const char* layout = std::getenv("ORCH_LAYOUT");
  if (layout && *layout) {
    if (std::sscanf(layout, "%dx%d", &t.lx, &t.ly) != 2 || t.lx < 1 || t.ly < 1)
      return fail(st, "halo exchange: ORCH_LAYOUT='%s' is not NXxNY (ranks along I and J of the tile)", layout);
  }
  const char* boundary = std::getenv("ORCH_BOUNDARY");
  if (boundary && *boundary && std::strcmp(boundary, "periodic") != 0 && std::strcmp(boundary, "edges") != 0)
    return fail(st, "halo exchange: ORCH_BOUNDARY='%s' is not 'periodic' or 'edges'", boundary);
  t.periodic = boundary && std::strcmp(boundary, "periodic") == 0;
#ifdef ORCH_MPI
  int inited = 0;
  MPI_Initialized(&inited);
  if (!inited) {
    // a host that loaded libmpi privately (ctypes, Node) hides its symbols from OpenMPI's
    // own plugins: make them global before MPI_Init, as mpi4py does
    Dl_info info;
    if (dladdr(reinterpret_cast<void*>(&MPI_Init), &info) && info.dli_fname) dlopen(info.dli_fname, RTLD_NOW | RTLD_GLOBAL | RTLD_NOLOAD);
    int provided = 0;
    if (MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS) return fail(st, "halo exchange: MPI_Init_thread failed");
    std::atexit(finalize_ours);
  }
  MPI_Comm_rank(MPI_COMM_WORLD, &t.rank);
  MPI_Comm_size(MPI_COMM_WORLD, &t.size);
#endif
  if (t.size != t.lx * t.ly)
    return fail(st, "halo exchange: layout %dx%d has %d ranks on its tile, but the run has %d (%s)", t.lx, t.ly, t.lx * t.ly, t.size,
#ifdef ORCH_MPI
                "start that many ranks with mpirun -np, or set ORCH_LAYOUT to this run's layout"
#else
                "this library was built without MPI: enable compiler.mpi in the preset or config"
#endif
    );
  const int col = t.rank % t.lx, row = t.rank / t.lx;
  for (int d = 0; d < kDirections; ++d) {
    int c = col + kDir[d][0], r = row + kDir[d][1];
    if (t.periodic) {
      c = (c + t.lx) % t.lx;
      r = (r + t.ly) % t.ly;
    } else if (c < 0 || c >= t.lx || r < 0 || r >= t.ly) {
      t.nb[d].rank = -1;
      continue;
    }
    t.nb[d].rank = r * t.lx + c;
    t.nb[d].rotation = 0;
  }
  t.ready = true;
  return 0;
}

/* A field of an exchange: its array, dimensions (2 or 3) and element size in bytes. */
struct Field {
  orch_array a;
  int dims;
  int elem;
  const char* name;
};

/* A growable byte buffer. Not std::vector<char>: its resize instantiates a libstdc++
   template with default visibility, which the library would then export beside its C ABI. */
struct Bytes {
  char* p = nullptr;
  size_t n = 0, cap = 0;
  Bytes() = default;
  Bytes(const Bytes&) = delete;
  Bytes& operator=(const Bytes& o) {
    if (this != &o) {
      resize(o.n);
      if (n) std::memcpy(p, o.p, n);
    }
    return *this;
  }
  ~Bytes() { std::free(p); }
  void resize(size_t m) {
    if (m > cap) {
      char* q = static_cast<char*>(std::realloc(p, m));
      if (!q) {
        n = 0;  // data() is then null, which the callers report
        return;
      }
      p = q;
      cap = m;
    }
    n = m;
  }
  char* data() { return n ? p : nullptr; }
};

/* One exchange in flight (a start not yet waited for): buffers and requests per direction. */
struct Exchange {
  Bytes send[kDirections], recv[kDirections];
#ifdef ORCH_MPI
  MPI_Request req[2 * kDirections];
#ifdef ORCH_HALO_IN_PLACE
  // in place: one committed type per direction and side, for the arrays of `signature`
  MPI_Datatype send_type[kDirections], recv_type[kDirections];
  std::vector<int64_t> signature;
  bool typed = false;
#endif
#endif
  int nreq = 0;
  bool active = false;
  bool direct = false;
};

struct Box {
  int64_t i0, i1, j0, j1;
};

inline Box box(const Field& f, int halo, int width, int d, bool inside) {
  auto span = [&](int dir, int64_t n, int64_t& lo, int64_t& hi) {
    if (dir == 0) {
      lo = halo;
      hi = halo + n;
    } else if (inside) {
      lo = dir < 0 ? halo : halo + n - width;
      hi = lo + width;
    } else {
      lo = dir < 0 ? halo - width : halo + n;
      hi = lo + width;
    }
  };
  Box b;
  span(kDir[d][0], f.a.shape[0] - 2 * halo, b.i0, b.i1);
  span(kDir[d][1], f.a.shape[1] - 2 * halo, b.j0, b.j1);
  return b;
}

inline int64_t box_bytes(const Field& f, const Box& b) {
  const int64_t nk = f.dims > 2 ? f.a.shape[2] : 1;
  return (b.i1 - b.i0) * (b.j1 - b.j0) * nk * f.elem;
}

#ifdef ORCH_CUDA_H  // a CUDA build (orch_cuda.h comes first): device arrays
/* Copies a box of a device array to (pack) or from (unpack) a host buffer, I then J then K; null on a CUDA error. */
inline char* copy_box(const Field& f, const Box& b, char* buf, bool pack) {
  const int64_t nk = f.dims > 2 ? f.a.shape[2] : 1;
  const int64_t sk = f.dims > 2 ? f.a.strides[2] : 1;
  char* base = static_cast<char*>(f.a.data);
  for (int64_t i = b.i0; i < b.i1; ++i) {
    if (sk == 1) {
      // the box's J rows of this I plane: nk contiguous elements each, strides[1] apart
      const size_t row = nk * f.elem, pitch = f.a.strides[1] * f.elem, rows = b.j1 - b.j0;
      char* p = base + (i * f.a.strides[0] + b.j0 * f.a.strides[1]) * f.elem;
      const cudaError_t e = pack ? cudaMemcpy2D(buf, row, p, pitch, row, rows, cudaMemcpyDeviceToHost) : cudaMemcpy2D(p, pitch, buf, row, row, rows, cudaMemcpyHostToDevice);
      if (e != cudaSuccess) return nullptr;
      buf += row * rows;
      continue;
    }
    for (int64_t j = b.j0; j < b.j1; ++j) {
      for (int64_t k = 0; k < nk; ++k, buf += f.elem) {
        char* p = base + (i * f.a.strides[0] + j * f.a.strides[1] + k * sk) * f.elem;
        const cudaError_t e = pack ? cudaMemcpy(buf, p, f.elem, cudaMemcpyDeviceToHost) : cudaMemcpy(p, buf, f.elem, cudaMemcpyHostToDevice);
        if (e != cudaSuccess) return nullptr;
      }
    }
  }
  return buf;
}
#else
/* Copies a box out of (pack) or into (unpack) an array, I then J then K. */
inline char* copy_box(const Field& f, const Box& b, char* buf, bool pack) {
  const int64_t nk = f.dims > 2 ? f.a.shape[2] : 1;
  const int64_t sk = f.dims > 2 ? f.a.strides[2] : 1;
  char* base = static_cast<char*>(f.a.data);
  for (int64_t i = b.i0; i < b.i1; ++i) {
    for (int64_t j = b.j0; j < b.j1; ++j) {
      char* p = base + (i * f.a.strides[0] + j * f.a.strides[1]) * f.elem;
      if (sk == 1) {
        if (pack) std::memcpy(buf, p, nk * f.elem);
        else std::memcpy(p, buf, nk * f.elem);
        buf += nk * f.elem;
      } else {
        for (int64_t k = 0; k < nk; ++k, buf += f.elem) {
          if (pack) std::memcpy(buf, p + k * sk * f.elem, f.elem);
          else std::memcpy(p + k * sk * f.elem, buf, f.elem);
        }
      }
    }
  }
  return buf;
}
#endif

#ifdef ORCH_HALO_IN_PLACE
/* The boxes of every field towards (or from) d, in place: absolute addresses (MPI_BOTTOM). */
inline MPI_Datatype box_type(const Field* fields, int n, int halo, int width, int d, bool inside) {
  std::vector<MPI_Datatype> parts(n);
  std::vector<MPI_Aint> at(n);
  std::vector<int> ones(n, 1);
  for (int f = 0; f < n; ++f) {
    const Field& F = fields[f];
    const Box b = box(F, halo, width, d, inside);
    const int64_t nk = F.dims > 2 ? F.a.shape[2] : 1;
    const int64_t sk = F.dims > 2 ? F.a.strides[2] : 1;
    MPI_Datatype k, j;
    if (sk == 1) MPI_Type_contiguous((int)(nk * F.elem), MPI_BYTE, &k);
    else {
      MPI_Datatype e;
      MPI_Type_contiguous(F.elem, MPI_BYTE, &e);
      MPI_Type_create_hvector((int)nk, 1, (MPI_Aint)(sk * F.elem), e, &k);
      MPI_Type_free(&e);
    }
    MPI_Type_create_hvector((int)(b.j1 - b.j0), 1, (MPI_Aint)(F.a.strides[1] * F.elem), k, &j);
    MPI_Type_create_hvector((int)(b.i1 - b.i0), 1, (MPI_Aint)(F.a.strides[0] * F.elem), j, &parts[f]);
    MPI_Type_free(&k);
    MPI_Type_free(&j);
    char* p = static_cast<char*>(F.a.data) + (b.i0 * F.a.strides[0] + b.j0 * F.a.strides[1]) * F.elem;
    MPI_Get_address(p, &at[f]);
  }
  MPI_Datatype all;
  MPI_Type_create_struct(n, ones.data(), at.data(), parts.data(), &all);
  MPI_Type_commit(&all);
  for (auto& p : parts) MPI_Type_free(&p);
  return all;
}

/* The committed types of an exchange, rebuilt only when its arrays moved or changed shape. */
inline void ensure_types(Exchange& ex, const Topology& t, const Field* fields, int n, int width, int halo) {
  std::vector<int64_t> sig = {n, width, halo};
  for (int f = 0; f < n; ++f) {
    sig.push_back(reinterpret_cast<int64_t>(fields[f].a.data));
    for (int a = 0; a < fields[f].dims; ++a) {
      sig.push_back(fields[f].a.shape[a]);
      sig.push_back(fields[f].a.strides[a]);
    }
  }
  if (ex.typed && sig == ex.signature) return;
  for (int d = 0; d < kDirections && ex.typed; ++d) {
    if (ex.send_type[d] != MPI_DATATYPE_NULL) MPI_Type_free(&ex.send_type[d]);
    if (ex.recv_type[d] != MPI_DATATYPE_NULL) MPI_Type_free(&ex.recv_type[d]);
  }
  for (int d = 0; d < kDirections; ++d) {
    const bool used = t.nb[d].rank >= 0;
    ex.send_type[d] = used ? box_type(fields, n, halo, width, d, true) : MPI_DATATYPE_NULL;
    ex.recv_type[d] = used ? box_type(fields, n, halo, width, d, false) : MPI_DATATYPE_NULL;
  }
  ex.signature = sig;
  ex.typed = true;
}
#endif

/*
 * Packs every field's strips and posts the messages (exchange `id` tags them apart).
 * `direct`: a blocking update, nothing runs before its wait (in place, unless ORCH_HALO_PACK).
 */
inline int start(State* st, Topology& t, Exchange& ex, const Field* fields, int n, int width, int halo, int id, const char* where, bool direct = false) {
  if (topology(st, t)) return 1;
  if (ex.active) return fail(st, "%s: halo exchange started again before its wait", where);
  for (int f = 0; f < n; ++f) {
    const int64_t nx = fields[f].a.shape[0] - 2 * halo, ny = fields[f].a.shape[1] - 2 * halo;
    if (nx < width || ny < width)
      return fail(st, "%s: field '%s' of %lld x %lld points has a compute domain of %lld x %lld, smaller than the halo width %d (halo %d)", where,
                  fields[f].name, (long long)fields[f].a.shape[0], (long long)fields[f].a.shape[1], (long long)nx, (long long)ny, width, halo);
  }
  ex.nreq = 0;
  ex.direct = false;
#ifdef ORCH_HALO_IN_PLACE
  if (direct) {
    ensure_types(ex, t, fields, n, width, halo);
    for (int d = 0; d < kDirections; ++d) {
      if (t.nb[d].rank < 0) continue;
      if (MPI_Irecv(MPI_BOTTOM, 1, ex.recv_type[d], t.nb[d].rank, id * kDirections + opposite(d), MPI_COMM_WORLD, &ex.req[ex.nreq++]) != MPI_SUCCESS ||
          MPI_Isend(MPI_BOTTOM, 1, ex.send_type[d], t.nb[d].rank, id * kDirections + d, MPI_COMM_WORLD, &ex.req[ex.nreq++]) != MPI_SUCCESS)
        return fail(st, "%s: posting the halo messages to rank %d failed", where, t.nb[d].rank);
    }
    ex.direct = true;
    ex.active = true;
    return 0;
  }
#endif
  (void)direct;
  for (int d = 0; d < kDirections; ++d) {
    if (t.nb[d].rank < 0) continue;
    int64_t bytes = 0, rbytes = 0;
    for (int f = 0; f < n; ++f) {
      bytes += box_bytes(fields[f], box(fields[f], halo, width, d, true));
      rbytes += box_bytes(fields[f], box(fields[f], halo, width, d, false));
    }
    ex.send[d].resize(bytes);
    ex.recv[d].resize(rbytes);
    if ((bytes && !ex.send[d].data()) || (rbytes && !ex.recv[d].data()))
      return fail(st, "%s: no memory for the halo buffers (%lld bytes)", where, (long long)(bytes + rbytes));
    char* p = ex.send[d].data();
    for (int f = 0; f < n && p; ++f) {
      p = copy_box(fields[f], box(fields[f], halo, width, d, true), p, true);
      if (!p) return fail(st, "%s: copying the halo strips of '%s' from the GPU failed", where, fields[f].name);
    }
#ifdef ORCH_MPI
    // what the neighbour in d sent towards us went in the opposite direction
    if (MPI_Irecv(ex.recv[d].data(), (int)rbytes, MPI_BYTE, t.nb[d].rank, id * kDirections + opposite(d), MPI_COMM_WORLD, &ex.req[ex.nreq++]) != MPI_SUCCESS ||
        MPI_Isend(ex.send[d].data(), (int)bytes, MPI_BYTE, t.nb[d].rank, id * kDirections + d, MPI_COMM_WORLD, &ex.req[ex.nreq++]) != MPI_SUCCESS)
      return fail(st, "%s: posting the halo messages to rank %d failed", where, t.nb[d].rank);
#endif
  }
#ifndef ORCH_MPI
  // one rank: the message towards d arrives from the opposite side
  for (int d = 0; d < kDirections; ++d) {
    if (t.nb[d].rank < 0) continue;
    ex.recv[opposite(d)] = ex.send[d];
    if (ex.send[d].n && !ex.recv[opposite(d)].data()) return fail(st, "%s: no memory for the halo buffers (%lld bytes)", where, (long long)ex.send[d].n);
  }
#endif
  (void)id;
  ex.active = true;
  return 0;
}

/* Completes the messages of a start and unpacks them into the halo points. */
inline int wait(State* st, Topology& t, Exchange& ex, const Field* fields, int n, int width, int halo, const char* where) {
  if (!ex.active) return fail(st, "%s: halo_update_wait without a started exchange", where);
  ex.active = false;
#ifdef ORCH_MPI
  std::vector<MPI_Status> status(ex.nreq);
  if (MPI_Waitall(ex.nreq, ex.req, status.data()) != MPI_SUCCESS) return fail(st, "%s: the halo messages of rank %d did not complete", where, t.rank);
  if (ex.direct) return 0;  // received in place
#endif
  for (int d = 0; d < kDirections; ++d) {
    if (t.nb[d].rank < 0) continue;
    char* p = ex.recv[d].data();
    for (int f = 0; f < n && p; ++f) {
      p = copy_box(fields[f], box(fields[f], halo, width, d, false), p, false);
      if (!p) return fail(st, "%s: copying the halo of '%s' to the GPU failed", where, fields[f].name);
    }
  }
  return 0;
}

}  // namespace halo
}  // namespace orch

#endif  // ORCH_HALO_H
