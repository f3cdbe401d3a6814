import type { OrchPlugin } from '../core/config/types.js';
import { AnalyzePlugin } from './analyze/AnalyzePlugin.js';
import { CodegenPlugin } from './codegen/CodegenPlugin.js';
import { CompilePlugin } from './compile/CompilePlugin.js';
import { DebugInsertionPlugin } from './debugInsertion/DebugInsertionPlugin.js';
import { EmitPlugin } from './emit/EmitPlugin.js';
import { LibraryExpansionPlugin } from './libraryExpansion/LibraryExpansionPlugin.js';
import { ParsePlugin } from './parse/ParsePlugin.js';
import { PoolingPlugin } from './pooling/PoolingPlugin.js';
import { RegionExpansionPlugin } from './regionExpansion/RegionExpansionPlugin.js';
import { SimplifyPlugin } from './simplify/SimplifyPlugin.js';

/** The built-in stages, each a plugin, in pipeline order. */
export function builtinPlugins(): OrchPlugin[] {
  return [
    new ParsePlugin(),
    new SimplifyPlugin(),
    new RegionExpansionPlugin(),
    new LibraryExpansionPlugin(),
    new PoolingPlugin(),
    new DebugInsertionPlugin(),
    new CodegenPlugin(),
    new CompilePlugin(),
    new AnalyzePlugin(),
    new EmitPlugin(),
  ];
}
