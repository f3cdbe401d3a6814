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
export { Compilation, STAGES, type EntryRef, type PipelineOptions, type SimplifyPhase, type StageName } from './Compilation.js';
export type { EntryBuild, MemoryReport } from './EntryBuild.js';
export { BUILTIN_STAGE, requireValidIR, tapSimplify, tapStage, type StageHook } from './stagePlugin.js';
export { PassPlugin, type PassOptions } from './PassPlugin.js';
export { Watching, type WatchHandler, type WatchOptions, type WatchRun, type WatchTarget } from './Watching.js';

// Diagnostics
export { didYouMean, fail, formatDiagnostic, OrchError, OrchErrors, type Diagnostic } from './diagnostics.js';

// The IR: types, text form, verifier and traversals
export type * from './ir/types.js';
export { printExpr, printProgram } from './ir/print.js';
export { parseProgram } from './ir/parse.js';
export { verifyProgram } from './ir/verify.js';
export { flatMapStmts, forEachExpr, forEachPStmt, forEachStmt, launches, mapExpr, mapProgramExprs, mapStmts, visitExpr } from './ir/visit.js';

// Running a built library from Node
export { NativeLibrary, type ArgValue, type ProgramSignature, type SignatureParam } from './runtime/NativeLibrary.js';
export { allocate, type NDArray } from './runtime/ndarray.js';
export { readNpy, writeNpy } from './runtime/npy.js';
