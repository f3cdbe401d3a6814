import type { Compiler } from '../Compiler.js';

/** A plugin, webpack style: `apply` taps the compiler's and compilations' hooks. */
export interface OrchPlugin {
  /** Shown in errors raised inside the plugin and in --time-passes. */
  name: string;
  /** Part of the cache key: bump it when the plugin's output changes. */
  version?: string;
  apply(compiler: Compiler): void;
}

export interface CompilerOptions {
  /** The C++ compiler command. */
  cxx: string;
  flags: string[];
}

export interface CodegenOptions {
  /** Loop order, outermost first: 'IJK', 'KJI', 'KIJ', 'JIK' ... */
  loopOrder: string;
  openmp: boolean;
  /** Emit #line directives pointing at the user's .py lines. */
  lineDirectives: boolean;
}

/** A preset is data: options and plugins for one kind of hardware. */
export interface Preset {
  name: string;
  description: string;
  target: 'cpu' | 'cuda';
  compiler: CompilerOptions;
  codegen: CodegenOptions;
  plugins: OrchPlugin[];
}

/** What `orch.config.ts` may set (all optional; merged over the preset). */
export interface OrchConfig {
  /** Module globs, relative to the config file. */
  modules?: string[];
  preset?: string;
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
  /** Default rank layout of `orch build`/`orch run` (the CLI's --layout, --rank-domain, --halo override). */
  layout?: LayoutConfig;
}

/** A rank layout: NXxNY ranks per tile, each with compute domain `domain` and halo `halo` (default 3). */
export interface LayoutConfig {
  layout: string;
  domain: [number, number, number];
  halo?: number;
}

/** The configuration a Compiler runs with: preset merged under the user's config. */
export interface ResolvedConfig {
  /** Folder of the config file (or the working directory). */
  root: string;
  configFile: string | null;
  modules: string[];
  preset: Preset;
  plugins: OrchPlugin[];
  compiler: CompilerOptions;
  codegen: CodegenOptions;
  cacheRoot: string;
  pythonPath: string[];
  externals: Record<string, unknown>;
  defines: Record<string, number | boolean>;
  verifyIR: boolean;
  layout?: LayoutConfig;
}
