import { mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';

/** The repository root (the `orch` package) and the CLI built from it. */
export const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const ORCH_BIN = path.join(REPO, 'dist/bin/orch.js');

export const STENCIL_HEADER = 'from gt4py.cartesian.gtscript import PARALLEL, computation, interval\nfrom ndsl.dsl.typing import Float, FloatField\n';

/**
 * A user's project in a temporary folder, as the tests' stand-in for `npm install orch`:
 * `node_modules/orch` links to this repository, so config files and plugins can
 * `import ... from 'orch'`. The cache lives inside it (GT_CACHE_ROOT).
 */
export class TempProject {
  readonly dir: string;

  constructor(prefix: string) {
    this.dir = mkdtempSync(path.join(os.tmpdir(), `orch-${prefix}-`));
    mkdirSync(path.join(this.dir, 'node_modules'));
    symlinkSync(REPO, path.join(this.dir, 'node_modules', 'orch'), 'dir');
  }

  path(rel: string): string {
    return path.join(this.dir, rel);
  }

  write(rel: string, text: string): string {
    const f = this.path(rel);
    mkdirSync(path.dirname(f), { recursive: true });
    writeFileSync(f, text);
    return f;
  }

  read(rel: string): string {
    return readFileSync(this.path(rel), 'utf8');
  }

  /** Runs the CLI in the project; never throws on a nonzero exit. */
  async orch(args: string[], env: Record<string, string> = {}) {
    const r = await execa(process.execPath, [ORCH_BIN, ...args], { cwd: this.dir, env: { GT_CACHE_ROOT: this.dir, ...env }, reject: false });
    return { code: r.exitCode ?? -1, stdout: String(r.stdout), stderr: String(r.stderr) };
  }
}

/** A module with one stencil `name(a, b, w)` whose body is `b = <expr>`. */
export function stencilModule(name: string, expr: string, imports = ''): string {
  return `${STENCIL_HEADER}${imports}\n\ndef ${name}(a: FloatField, b: FloatField, w: Float):\n    with computation(PARALLEL), interval(...):\n        b = ${expr}\n`;
}
