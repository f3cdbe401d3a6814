import type { Compiler } from '../Compiler.js';
import type { Backend } from './Backend.js';

/** A plugin, webpack style: `apply` taps the compiler's and compilations' hooks. */
export interface OrchPlugin {
  /** Shown in errors raised inside the plugin and in --time-passes. */
  name: string;
  /** Part of the cache key: bump it when the plugin's output changes. */
  version?: string;
  apply(compiler: Compiler): void;
}

/**
 * What the top layer (cli/toolset.ts) hands the core: the built-in stage plugins and the
 * preset table. The core never imports plugins/ or presets/ itself.
 */
export interface Toolset {
  /** Fresh instances of the built-in stages, in pipeline order. */
  stages: () => OrchPlugin[];
  /** Every preset by name. */
  presets: Record<string, Preset>;
  /** Every backend by name (a preset names its own). */
  backends: Record<string, Backend>;
}

export interface CompilerOptions {
  /** The C++ compiler command (nvcc for CUDA presets). */
  cxx: string;
  flags: string[];
  /**
   * CUDA presets: the GPU architecture(s), e.g. 'sm_90' or 'sm_80,sm_90', or 'auto' for
   * $CUDA_ARCH, else nvidia-smi, at build time (core/config/cudaArch.ts).
   */
  cudaArch?: string;
  /**
   * Link MPI (OpenMPI's mpicxx flags) so the program's halo exchanges run across ranks
   * (docs/mpi.md). Off: the library needs no MPI, and runs as one rank.
   */
  mpi?: boolean;
  /** A command put before every compiler call, as CMAKE_CXX_COMPILER_LAUNCHER: ['ccache'], ['distcc']. */
  launcher?: string[];
  /** Seconds before a hung compiler is killed and the build fails with E_TOOLCHAIN_TIMEOUT (default 1800). */
  timeoutS?: number;
}

export interface CodegenOptions {
  /** Loop order, outermost first: 'IJK', 'KJI', 'KIJ', 'JIK' ... */
  loopOrder: string;
  openmp: boolean;
  /** Emit #line directives pointing at the user's .py lines. */
  lineDirectives: boolean;
  /**
   * CUDA: threads per block of PARALLEL kernels along x, y, z; x runs along the last
   * axis of `loopOrder` (which should be the arrays' contiguous one).
   */
  blockSize?: [number, number, number];
  /** CUDA: threads per block of FORWARD/BACKWARD kernels (x, y over I and J; K stays in the thread). */
  columnBlockSize?: [number, number];
  /** CUDA: synchronize after every kernel so a fault names its stencil (debugging, slow). */
  syncLaunches?: boolean;
  /**
   * CPU: run launches tile by tile with this many points per tile along I, J (and K, where
   * a launch allows it), so a stencil's temporaries live per tile in cache
   * (plugins/simplify/tiling.ts); false: no tiling; 'auto': each launch the tile of its kind
   * (FORWARD/BACKWARD sweep, fused nests with halos, versions of in-place arrays ...:
   * plugins/simplify/launchTiles.ts; the CPU presets'). A size applies to every launch.
   */
  tile?: [number, number] | [number, number, number] | false | 'auto';
  /** Iterations a stencil's `while` loop may run before the run fails with E_RUNTIME (default 1e7, as Python mode). */
  maxWhileIterations?: number;
  /**
   * CPU: a tile of a FORWARD/BACKWARD launch copies the fields it sweeps into a [K][I][J]
   * buffer first, and those it writes back at its end (plugins/codegen/sweepStaging.ts);
   * default false (timed slower than reading in place with AVX-512; orch tune tries it).
   */
  stageSweeps?: boolean;
  /**
   * CPU: levels per tile of a launch whose tiles keep versions of in-place arrays
   * (plugins/simplify/inPlaceVersions.ts) where `tile` cuts no K; false: whole columns.
   * Default 16 (fewer cache misses in cachegrind); orch tune tries the others.
   */
  versionedTileK?: number | false;
  /**
   * CPU: tiles of FORWARD/BACKWARD launches are blocks of this many columns along J, staged as
   * with stageSweeps (8x8 transposes where compiled for AVX-512), the next block's columns
   * prefetched while the levels run, and written fields streamed back past the caches
   * (plugins/codegen/sweepBlocks.ts); 32 in the CPU presets (orch tune tries others). Each call runs the
   * blocks only where they pay (orch::sweep_blocks: AVX-512, a domain past L2 a thread), else
   * the launch as built without them.
   */
  sweepBlock?: number | false;
  /**
   * CPU: unroll a program loop of a few compile-time iterations whose body is only launches
   * (del-n damping's `for it in range(n_pass)`), so its iterations' launches fuse into one
   * tiled launch (plugins/simplify/launchLoopUnroll.ts); on in the CPU presets (`orch tune` tries both).
   */
  unrollLoops?: boolean;
  /**
   * CPU: in a tile, the nests of a PARALLEL loop run fused, column by column, each shifted by
   * the offsets it reads the others at (core/ir/nestFusion.ts, plugins/codegen/fusedNests.ts),
   * so a temporary is read back from L1; on in the CPU presets (orch tune tries both).
   */
  fuseNests?: boolean;
  /**
   * CPU, with fuseNests: nests with horizontal regions fuse too, each nest's K loop emitted
   * once per combination of its region tests, chosen per column (plugins/codegen/regionVersions.ts);
   * on in the CPU presets (orch tune tries both).
   */
  fuseRegions?: boolean;
  /**
   * CPU: the vector width (bits) g++ should prefer where it compiles for AVX-512
   * (plugins/codegen/vectorWidth.ts), or false for g++'s own choice (the presets'; orch tune tries 256).
   */
  vectorWidth?: 128 | 256 | 512 | false;
  /**
   * CPU: in a tile whose nests run fused (fuseNests), the versions of in-place arrays are
   * filled and committed row by row inside the fused loop, just before a row is first read
   * and just after it is last written, instead of over the whole tile before and after it
   * (plugins/codegen/streamedVersions.ts); off by default (orch tune tries it).
   */
  streamVersions?: boolean;
  /**
   * CPU: in a tile whose nests run fused along I, versions streamed row by row
   * (streamVersions) and temporaries that start zero-filled keep only the rows the fused loop
   * has in flight (a few rows whatever the tile, as fused nests' other temporaries), so wide
   * tiles keep them in cache (plugins/codegen/streamedVersions.ts, zeroedRows.ts); off by
   * default (orch tune tries it).
   */
  rollVersions?: boolean;
  /**
   * CPU: a PARALLEL loop that fuseNests leaves unfused because some nests have horizontal
   * regions runs its other nests fused in the tiles where the nests with regions, each only
   * regions, run no point (edge or corner copies: all but the tiles they reach, as in
   * fixtures/programs/edge_damping.py;
   * plugins/codegen/regionSplit.ts); off by default (orch tune tries it).
   */
  splitRegionTiles?: boolean;
  /**
   * CPU: where every fused nest's point is in range and nothing written is read at a K offset,
   * the nests share one K loop (true), or each keeps its own: with many nests
   * (the dycore's 3 unrolled substeps, 12 nests) the shared loop keeps a pointer per access
   * live and g++ spills them (plugins/codegen/fusedNests.ts). A number: shared only by loops of
   * at most that many nests (hdiff's 4 share one, the dycore's 12 do not: 8 in the CPU
   * presets); orch tune tries true, false and 8.
   */
  jamLevels?: boolean | number;
  /**
   * CPU, with fuseNests: the fused loop of a tile walks its columns (the inner horizontal
   * axis) in strips of this many, every row of one strip before the next, so the rows a nest
   * reads back span a strip instead of the whole tile (plugins/codegen/fusedNests.ts; the
   * delays then hold along both axes, core/ir/nestFusion.ts); false (the default): one strip.
   * orch tune tries 8 and 16.
   */
  fusedStrip?: number | false;
  /**
   * CPU: the tiles along I and J share the domain evenly (124 columns in tiles of 36: 41, 41
   * and 42) instead of the last one taking the remainder (36, 36, 52), so threads with few
   * tiles each get even work (plugins/codegen/tileCuts.ts); off by default (orch tune tries it).
   */
  balancedTiles?: boolean;
  /**
   * CPU: in fused nests (fuseNests), a field a launch writes at every point of a nest and never
   * reads back is computed a K column at a time into a buffer in L1 and copied out with streaming
   * stores, without the read of each line it overwrites (plugins/codegen/streamedOutputs.ts). Each
   * call streams only where its domain is past L2 a thread (orch::stream_stores), else the loops as
   * built without it. Off by default (orch tune tries it).
   */
  streamOutputs?: boolean;
  /**
   * CPU: in fused nests (fuseNests), each column of a tile's fused loop prefetches the K
   * column this many columns ahead of the newest one each float64 argument is read at, in the
   * row furthest ahead (plugins/codegen/columnPrefetch.ts); false: none. Off by default (orch tune tries it).
   */
  prefetchColumns?: number | false;
  /**
   * CPU: each K column of a tile's own arrays (tile-local temporaries and versions) starts on a
   * 64-byte line, its K extent rounded up (plugins/codegen/tileScratch.ts): with 79 levels the
   * columns are otherwise 632 bytes apart and every vector access of a temporary straddles two
   * lines; off by default (orch tune tries it).
   */
  alignTileColumns?: boolean;
  /**
   * CPU: a PARALLEL nest that writes only temporaries read by later nests at horizontal
   * offsets is recomputed in each reader at each offset instead of stored and loaded
   * (plugins/simplify/recomputeTemporaries.ts); off by default (orch tune tries it).
   */
  recomputeTemporaries?: boolean;
}

/** A preset is data: options and plugins for one kind of hardware. */
export interface Preset {
  name: string;
  description: string;
  /** The backend that generates and compiles its libraries (a name in the toolset's backends). */
  backend: string;
  compiler: CompilerOptions;
  codegen: CodegenOptions;
  plugins: OrchPlugin[];
  /** Debug checkers on by default in this preset. */
  debug?: Partial<DebugOptions>;
}

/** What `orch.config.ts` may set (all optional; merged over the preset). */
export interface OrchConfig {
  /** Module globs, relative to the config file. */
  modules?: string[];
  /** A built-in preset's name, or a preset itself (the file `orch tune --write-preset` writes, imported). */
  preset?: string | Preset;
  plugins?: OrchPlugin[];
  compiler?: Partial<CompilerOptions> & { extraFlags?: string[] };
  codegen?: Partial<CodegenOptions>;
  /** Cache root (default: $GT_CACHE_ROOT, else the working directory). */
  cacheRoot?: string;
  /** Extra folders searched for Python imports, after the module's own folder. */
  pythonPath?: string[];
  /** Externals applied to every stencil (the CLI's --externals overrides). */
  externals?: Record<string, unknown>;
  /** Compile-time program arguments (the CLI's --define overrides). */
  defines?: Record<string, number | boolean>;
  /** Verify the IR after every pass (on in tests). */
  verifyIR?: boolean;
  /** Turn optimizing passes off (`{ fusion: false }`); every pass is on by default. */
  passes?: Partial<Record<PassName, boolean>>;
  /** Debug checkers (the `debug` preset turns them on; `--debug` too). */
  debug?: Partial<DebugOptions>;
  /** Default rank layout of `orch build`/`orch run` (the CLI's --layout, --rank-domain, --halo override). */
  layout?: LayoutConfig;
  /** `maxSize: '2G'`: after a build that built something, evict least recently used variants until the cache fits (like ccache -M). */
  cache?: { maxSize?: string | number };
}

/** The optimizing passes that can be turned off. */
export type PassName = 'constantFolding' | 'copyPropagation' | 'deadCode' | 'mergeBlocks' | 'fusion' | 'sweepFusion' | 'recomputeTemporaries' | 'scalarization' | 'loopUnroll' | 'tiling' | 'planes' | 'regionExpansion' | 'pooling';

export const PASS_NAMES: PassName[] = ['constantFolding', 'copyPropagation', 'deadCode', 'mergeBlocks', 'fusion', 'sweepFusion', 'loopUnroll', 'recomputeTemporaries', 'scalarization', 'tiling', 'planes', 'regionExpansion', 'pooling'];

/** A rank layout: NXxNY ranks per tile, each with compute domain `domain` and halo `halo` (default 3). */
export interface LayoutConfig {
  layout: string;
  domain: [number, number, number];
  halo?: number;
}

export interface DebugOptions {
  enabled: boolean;
  /** NaN check after each write of a float field */
  nan: boolean;
  /** fields checked for negative values */
  tracers: string[];
  threshold: number;
  /** check fields named delp* for negative values */
  delp: boolean;
  action: 'abort' | 'log';
}

/** The configuration a Compiler runs with: preset merged under the user's config. */
export interface ResolvedConfig {
  /** Folder of the config file (or the working directory). */
  root: string;
  configFile: string | null;
  /** Every file loading the config read: the config file and the plugins and presets it imports. */
  files?: string[];
  modules: string[];
  preset: Preset;
  /** The backend the preset names. */
  backend: Backend;
  /** The built-in stages (from the toolset), applied before `plugins`. */
  stages: () => OrchPlugin[];
  plugins: OrchPlugin[];
  compiler: CompilerOptions;
  codegen: CodegenOptions;
  cacheRoot: string;
  pythonPath: string[];
  externals: Record<string, unknown>;
  defines: Record<string, number | boolean>;
  verifyIR: boolean;
  passes: Record<PassName, boolean>;
  debug: DebugOptions;
  layout?: LayoutConfig;
  /** The cache's size limit in bytes (`cache.maxSize`), applied after builds. */
  cache?: { maxBytes?: number };
}
