/**
 * The core's API; the package entry (../index.ts) adds the built-in presets and stages.
 * See docs/plugins.md for the plugin API and docs/config.md for the config.
 */

// Config and presets
export { defineConfig } from './config/defineConfig.js';
export type { ConfigOverrides } from './config/loadConfig.js';
export type { CodegenOptions, CompilerOptions, OrchConfig, OrchPlugin, Preset, ResolvedConfig, Toolset } from './config/types.js';

// The compiler, its compilations and their hooks
export { Compiler, type BuildMode, type BuildRequest, type BuildResult, type EntryResult } from './Compiler.js';
export { Compilation, passName, type EntryRef, type PipelineOptions } from './Compilation.js';
export { BUILTIN_STAGE, PIPELINE, STAGES, type StageName } from './pipeline.js';
export { EntryBuild, type Compiled, type Emitted, type EntryContext, type Expanded, type Generated, type MemoryReport, type Parsed, type ProductName, type StageProducts } from './EntryBuild.js';
export { tapStage } from './stagePlugin.js';
export { EntryCache, EntryTransaction, type CacheEntryRef, type CacheHit, type CacheOutcome, type KeyInputs } from './cache/EntryCache.js';
export { PassPlugin, type PassOptions } from './PassPlugin.js';
export { Watching, type WatchHandler, type WatchOptions, type WatchRun, type WatchTarget } from './Watching.js';

// Diagnostics
export { didYouMean, fail, formatDiagnostic, OrchError, OrchErrors, type Diagnostic } from './diagnostics.js';

// The IR: types, text form, verifier and traversals
export type * from './ir/types.js';
export { printExpr, printProgram } from './ir/print.js';
export { parseProgram } from './ir/parse.js';
export { verifyProgram } from './ir/verify.js';
export { flatMapPStmts, flatMapStmts, forEachExpr, forEachPStmt, forEachStmt, launches, mapExpr, mapProgramExprs, mapStmts, visitExpr } from './ir/visit.js';

// Running a built library from Node
export { NativeLibrary, type ArgValue, type ProgramSignature, type SignatureParam } from './runtime/NativeLibrary.js';
export { allocate, type NDArray } from './runtime/ndarray.js';
export { readNpy, writeNpy } from './runtime/npy.js';
