import { readFileSync } from 'node:fs';
import path from 'node:path';
import { writeCacheFile, type BuildInfo } from '../../core/cache/BuildCache.js';
import { sha256 } from '../../core/cache/hashing.js';
import type { Compiler } from '../../core/Compiler.js';
import type { OrchPlugin } from '../../core/config/types.js';
import { printProgram } from '../../core/ir/print.js';
import { entryInterface } from '../../core/runtime/callArgs.js';
import { tapStage } from '../../core/stagePlugin.js';
import { layoutText } from '../../core/layout/RankLayout.js';

/** emit: IR dump, memory report and build info (with checksums), then an atomic rename into the cache. */
export class EmitPlugin implements OrchPlugin {
  readonly name = 'orch:emit';
  apply(compiler: Compiler): void {
    tapStage(compiler, 'emit', this.name, (build, compilation) => {
      if (!build.staging || !build.library || !build.cpp || !build.key || !build.program) return;
      const dir = build.staging;
      writeCacheFile(path.join(dir, 'ir.txt'), printProgram(build.program) + '\n');
      writeCacheFile(path.join(dir, 'memory.json'), JSON.stringify(build.memory ?? {}, null, 1));
      const artifacts = [path.basename(build.library), path.basename(build.cpp.file!), `${build.cpp.symbol}.h`, ...(build.cpp.extraFiles ?? []).map((f) => path.basename(f)), ...(build.cpp.binding ? [build.cpp.binding] : []), 'ir.txt', 'memory.json'];
      const checksums: Record<string, string> = {};
      for (const a of artifacts) checksums[a] = sha256(readFileSync(path.join(dir, a)));
      const env = Object.fromEntries(build.env);
      const sources: Record<string, string> = {};
      for (const [f, content] of build.files) sources[f] = sha256(content);
      const info: BuildInfo = {
        key: build.key,
        module: build.moduleRel,
        entry: build.entry,
        symbol: build.cpp.symbol,
        library: path.basename(build.library),
        binding: build.cpp.binding,
        created: new Date().toISOString(),
        inputs: build.inputs,
        sources,
        ...(build.env.size ? { env } : {}),
        checksums,
        warnings: build.warnings,
        timings: build.timings,
        signature: build.cpp.signature,
        interface: entryInterface(build.program),
        layout: build.layout && { layout: layoutText(build.layout.target.layout), codepath: build.layout.codepath, domain: [...build.layout.target.domain], halo: build.layout.target.halo },
        command: build.command ?? [],
      };
      // build-info.json is written last: an entry without it is never loaded
      const infoText = JSON.stringify(info, null, 1);
      writeCacheFile(path.join(dir, 'build-info.json'), infoText);
      build.dir = compilation.cache.commit(dir, { optionsKey: build.optionsKey, inputs: build.inputs, files: sources, absent: build.absent ?? [], ...(build.env.size ? { env } : {}), key: build.key, infoHash: sha256(infoText) });
      build.library = path.join(build.dir, info.library);
      build.staging = undefined;
    });
  }
}
