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
    tapStage(compiler, 'emit', this.name, (build) => {
      const parsed = build.need('parsed', 'emit');
      const generated = build.need('generated', 'emit');
      const compiled = build.need('compiled', 'emit');
      const memory = build.need('analyzed', 'emit');
      const tx = build.needCache('emit');
      const key = tx.key(parsed);
      const dir = generated.staging;
      writeCacheFile(path.join(dir, 'ir.txt'), printProgram(build.program) + '\n');
      writeCacheFile(path.join(dir, 'memory.json'), JSON.stringify(memory, null, 1));
      const artifacts = [path.basename(compiled.library), path.basename(generated.file), `${generated.symbol}.h`, ...generated.extraFiles.map((f) => path.basename(f)), ...(generated.binding ? [generated.binding] : []), 'ir.txt', 'memory.json'];
      const checksums: Record<string, string> = {};
      for (const a of artifacts) checksums[a] = sha256(readFileSync(path.join(dir, a)));
      const env = Object.fromEntries(parsed.env);
      const sources: Record<string, string> = {};
      for (const [f, content] of parsed.files) sources[f] = sha256(content);
      const info: BuildInfo = {
        key,
        module: build.moduleRel,
        entry: build.entry,
        symbol: generated.symbol,
        library: path.basename(compiled.library),
        binding: generated.binding,
        created: new Date().toISOString(),
        inputs: build.inputs,
        sources,
        ...(parsed.env.size ? { env } : {}),
        checksums,
        warnings: build.warnings,
        timings: build.timings,
        signature: generated.signature,
        interface: entryInterface(build.program),
        layout: build.layout && { layout: layoutText(build.layout.target.layout), codepath: build.layout.codepath, domain: [...build.layout.target.domain], halo: build.layout.target.halo },
        command: compiled.command,
      };
      // build-info.json is written last: an entry without it is never loaded
      const infoText = JSON.stringify(info, null, 1);
      writeCacheFile(path.join(dir, 'build-info.json'), infoText);
      const committed = tx.commit(parsed, infoText);
      build.provide('emitted', { dir: committed, library: path.join(committed, info.library) });
    });
  }
}
