import type { Compiler } from '../../core/Compiler.js';
import type { OrchPlugin } from '../../core/config/types.js';
import { tapStage } from '../../core/stagePlugin.js';
import { findEntry } from '../../core/frontend/entries.js';
import { lowerEntry } from './lowerEntry.js';

/** parse: Python source -> program IR with coarse stencil nodes; records the files read. */
export class ParsePlugin implements OrchPlugin {
  readonly name = 'orch:parse';
  apply(compiler: Compiler): void {
    tapStage(compiler, 'parse', this.name, (build, compilation) => {
      const loader = compilation.loader;
      const scope = loader.load(build.module);
      // an orchestrated component names its class and method in its closure
      const entry = build.closure ? null : findEntry(scope, build.entry);
      build.program = lowerEntry(loader, entry, { externals: build.externals, defines: build.defines, layout: build.layout, closure: build.closure });
      const files = loader.dependencies(build.module);
      const env = loader.environment(build.module);
      // what was read makes the cache key (the entry's cache transaction computes it)
      build.provide('parsed', { files, env, absent: loader.absences(build.module) });
    });
  }
}
