import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { NATIVE_DIR } from '../core/cache/hashing.js';
import { Compiler } from '../core/Compiler.js';
import { resolveConfig } from '../cli/toolset.js';
import { formatDiagnostic } from '../core/diagnostics.js';
import { generateCpp } from '../plugins/codegen/generateCpp.js';
import { compileSharedLibrary } from '../core/toolchain/gxx.js';

/**
 * The innermost loop of generated nests vectorizes: the optimized IR of bench fixtures is
 * compiled with the default preset plus -fopt-info-vec-optimized, and gcc's "loop
 * vectorized" notes must name every innermost K loop of the generated nests.
 */
const here = path.dirname(fileURLToPath(import.meta.url));

for (const name of ['pointwise_chain', 'hdiff', 'dycore']) {
  test(`${name}: gcc vectorizes the innermost loop`, async () => {
    const fixture = path.resolve(here, `../../fixtures/bench/${name}.py`);
    const config = await resolveConfig({ configFile: null, cwd: mkdtempSync(path.join(os.tmpdir(), 'orch-vec-')) });
    const compiler = new Compiler(config, { verifyIR: true, printIrAfter: [], timePasses: false, print: () => undefined });
    const r = await compiler.build({ modules: [fixture], entry: name, externals: {}, defines: {}, mode: 'python' });
    assert.is(r.errors.length, 0, r.errors.map((d) => formatDiagnostic(d)).join('\n'));
    const out = generateCpp(r.entries[0].program!, { ...config.codegen });
    const dir = mkdtempSync(path.join(os.tmpdir(), 'orch-vec-build-'));
    const src = path.join(dir, `${out.symbol}.cpp`);
    writeFileSync(src, out.source);
    const res = await compileSharedLibrary({ compiler: config.compiler.cxx, flags: [...config.compiler.flags, '-fopt-info-vec-optimized'], source: src, output: path.join(dir, 'lib.so'), includeDirs: [NATIVE_DIR] });
    // the innermost K loops of the 3-D nests (loop order IJK), by line in the generated file
    const kLoops = out.source.split('\n').flatMap((l, n) => (l.trim().startsWith('for (int64_t k = klo; k < khi; ++k)') ? [n + 1] : []));
    assert.ok(kLoops.length > 0, 'the generated code has innermost K loops');
    for (const ln of kLoops) {
      assert.ok(res.stderr.includes(`${out.symbol}.cpp:${ln}:`) && new RegExp(`${out.symbol}\\.cpp:${ln}:\\d+: optimized: loop vectorized`).test(res.stderr), `the K loop at line ${ln} is not vectorized:\n${res.stderr.slice(0, 1500)}`);
    }
  });
}

test.run();
