import { chmodSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';

/**
 * docs/programs.md runs as written, block by block, in a fresh folder with `orch` on PATH
 * and ORCH_REPO naming this repository:
 *
 *   <!-- file: x.py -->  the block below is written to x.py (python files must compile)
 *   sh                   run with bash -euo pipefail; must succeed
 *   text                 the output of the sh block before it: each line appears, in
 *                        order, `…` matching anything (times, keys)
 *
 * Any other block fails the test, so no example in the page goes unexecuted.
 */

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, '../..');
const doc = path.join(repo, 'docs/programs.md');

interface Block {
  line: number;
  lang: string;
  code: string;
  file?: string;
}

function blocks(text: string): Block[] {
  const out: Block[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(\S*)\s*$/.exec(lines[i]);
    if (!open) continue;
    const start = i;
    const body: string[] = [];
    for (i++; i < lines.length && !/^```\s*$/.test(lines[i]); i++) body.push(lines[i]);
    const file = /^<!--\s*file:\s*(\S+)\s*-->$/.exec((lines[start - 1] ?? '').trim())?.[1];
    out.push({ line: start + 1, lang: open[1], code: `${body.join('\n')}\n`, file });
  }
  return out;
}

function expectLines(block: Block, output: string): void {
  const got = output.split('\n');
  let at = 0;
  for (const want of block.code.split('\n').filter((l) => l.trim())) {
    const re = new RegExp(want.trimEnd().split('…').map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('.*?'));
    while (at < got.length && !re.test(got[at])) at++;
    assert.ok(at < got.length, `docs/programs.md:${block.line}: expected output line not found (in order):\n  ${want}\nin:\n${output}`);
    at++;
  }
}

const t = suite('docs/programs.md');

t('every code block of docs/programs.md runs and prints what the page shows', async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'orch-docs-programs-'));
  const bin = path.join(dir, '.bin');
  mkdirSync(bin);
  writeFileSync(path.join(bin, 'orch'), `#!/bin/sh\nexec "${process.execPath}" "${path.join(repo, 'dist/bin/orch.js')}" "$@"\n`);
  chmodSync(path.join(bin, 'orch'), 0o755);
  const env = { PATH: `${bin}:${process.env.PATH}`, GT_CACHE_ROOT: dir, ORCH_REPO: repo, PYTHONPATH: '' };
  const all = blocks(readFileSync(doc, 'utf8'));
  assert.ok(all.filter((b) => b.lang === 'sh').length >= 5, 'the page has its commands');
  let output: string | undefined;
  for (const b of all) {
    const where = `docs/programs.md:${b.line}`;
    if (b.file) writeFileSync(path.join(dir, b.file), b.code);
    if (b.lang === 'python') {
      assert.ok(b.file, `${where}: a python block is a file the commands use (<!-- file: name.py -->)`);
      const r = await execa('python3', ['-m', 'py_compile', b.file!], { cwd: dir, reject: false, all: true });
      assert.is(r.exitCode, 0, `${where}: does not compile:\n${r.all}`);
    } else if (b.lang === 'sh') {
      const r = await execa('bash', ['-euo', 'pipefail', '-c', b.code], { cwd: dir, env, reject: false, all: true });
      assert.is(r.exitCode, 0, `${where}: failed (exit ${r.exitCode}):\n${b.code}\n${r.all}`);
      output = String(r.all);
    } else if (b.lang === 'text') {
      assert.ok(output !== undefined, `${where}: an output block follows a command block`);
      expectLines(b, output!);
    } else {
      assert.unreachable(`${where}: a \`\`\`${b.lang || '(none)'} block cannot be run; use python (with a file name), sh or text`);
    }
  }
});

t.run();
