import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { execa } from 'execa';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ORCH_BIN, REPO, TempProject } from './TempProject.js';

/**
 * Every code block of docs/*.md and README.md runs, in document order, in one temporary
 * project per document (with `orch` on PATH and `import ... from 'orch'` resolving to
 * this repository):
 *
 *   sh      run with bash -euo pipefail
 *   text    the output of the sh block before it: each line must appear, in order;
 *           `…` matches anything (times, keys, paths)
 *   ts      type-checked with tsc (strict); blocks without a file name are also run (jiti)
 *   python  run with python3; with a file name, a gtscript module: written and
 *           byte-compiled (the sh blocks after it build it)
 *   c       compiled with gcc -fsyntax-only against native/
 *   json    parsed
 *
 * An HTML comment right before a block gives it a file name (`<!-- file: orch.config.ts -->`,
 * written into the project before the block runs) or skips it with a reason
 * (`<!-- docs-test: skip: why -->`). Any other language is an error, so no block goes untested.
 */

interface Block {
  doc: string;
  line: number;
  lang: string;
  code: string;
  file?: string;
  skip?: string;
}

export function extractBlocks(doc: string, text: string): Block[] {
  const blocks: Block[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(\S*)\s*$/.exec(lines[i]);
    if (!open) continue;
    const start = i;
    const body: string[] = [];
    for (i++; i < lines.length && !/^```\s*$/.test(lines[i]); i++) body.push(lines[i]);
    const marker = start > 0 ? lines[start - 1] : '';
    const file = /^<!--\s*file:\s*(\S+)\s*-->$/.exec(marker.trim())?.[1];
    const skip = /^<!--\s*docs-test:\s*skip:\s*(.+?)\s*-->$/.exec(marker.trim())?.[1];
    blocks.push({ doc, line: start + 1, lang: open[1], code: `${body.join('\n')}\n`, file, skip });
  }
  return blocks;
}

/** `…` in an expected line matches anything; everything else literally. */
function lineMatcher(expected: string): RegExp {
  return new RegExp(expected.split('…').map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('.*?'));
}

function checkOutput(block: Block, output: string): void {
  const got = output.split('\n');
  let at = 0;
  for (const want of block.code.split('\n').filter((l) => l.trim())) {
    const re = lineMatcher(want.trimEnd());
    while (at < got.length && !re.test(got[at])) at++;
    assert.ok(at < got.length, `${block.doc}:${block.line}: expected output line not found (in order):\n  ${want}\nin:\n${output}`);
    at++;
  }
}

const TSCONFIG = {
  compilerOptions: {
    target: 'ES2022',
    module: 'NodeNext',
    moduleResolution: 'NodeNext',
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    allowImportingTsExtensions: true,
    types: ['node'],
    typeRoots: [path.join(REPO, 'node_modules/@types')],
  },
};

async function runDoc(doc: string, blocks: Block[]): Promise<void> {
  const p = new TempProject(`docs-${path.basename(doc, '.md')}`);
  const bin = p.path('.bin');
  mkdirSync(bin);
  writeFileSync(path.join(bin, 'orch'), `#!/bin/sh\nexec "${process.execPath}" "${ORCH_BIN}" "$@"\n`);
  chmodSync(path.join(bin, 'orch'), 0o755);
  // a package.json of type module, so ts files are ES modules as in a user's project
  writeFileSync(p.path('package.json'), '{ "type": "module", "private": true }\n');
  const env = { PATH: `${bin}:${process.env.PATH}`, GT_CACHE_ROOT: p.dir, ORCH_REPO: REPO };
  const tsFiles: string[] = [];
  let lastOutput: string | undefined;
  let n = 0;
  for (const b of blocks) {
    n++;
    const where = `${b.doc}:${b.line}`;
    if (b.skip) continue;
    if (b.file) p.write(b.file, b.code);
    switch (b.lang) {
      case 'sh':
      case 'bash': {
        const r = await execa('bash', ['-euo', 'pipefail', '-c', b.code], { cwd: p.dir, env, reject: false, all: true });
        assert.is(r.exitCode, 0, `${where}: sh block failed (exit ${r.exitCode}):\n${b.code}\n${r.all}`);
        lastOutput = String(r.all);
        break;
      }
      case 'text':
        assert.ok(lastOutput !== undefined, `${where}: an output block must follow an sh block`);
        checkOutput(b, lastOutput!);
        break;
      case 'ts':
      case 'typescript': {
        const file = b.file ?? p.write(`.docs/block${n}.ts`, b.code);
        tsFiles.push(path.resolve(p.dir, file));
        if (!b.file) {
          const r = await execa(process.execPath, [path.join(REPO, 'node_modules/jiti/lib/jiti-cli.mjs'), file], { cwd: p.dir, env, reject: false, all: true });
          assert.is(r.exitCode, 0, `${where}: ts block failed:\n${b.code}\n${r.all}`);
          lastOutput = String(r.all);
        }
        break;
      }
      case 'python':
      case 'py': {
        if (b.file) {
          const r = await execa('python3', ['-m', 'py_compile', b.file], { cwd: p.dir, env, reject: false, all: true });
          assert.is(r.exitCode, 0, `${where}: python file does not compile:\n${r.all}`);
        } else {
          const r = await execa('python3', ['-c', b.code], { cwd: p.dir, env, reject: false, all: true });
          assert.is(r.exitCode, 0, `${where}: python block failed:\n${b.code}\n${r.all}`);
          lastOutput = String(r.all);
        }
        break;
      }
      case 'c': {
        const src = b.file ?? p.write(`.docs/block${n}.c`, b.code);
        const r = await execa('gcc', ['-fsyntax-only', '-Wall', '-Werror', `-I${path.join(REPO, 'native')}`, '-I.', src], { cwd: p.dir, reject: false, all: true });
        assert.is(r.exitCode, 0, `${where}: C block does not compile:\n${r.all}`);
        break;
      }
      case 'json':
        assert.not.throws(() => JSON.parse(b.code), `${where}: invalid JSON`);
        break;
      default:
        assert.unreachable(`${where}: a \`\`\`${b.lang || '(no language)'} block cannot be tested; use sh, text, ts, python, c or json, or mark it <!-- docs-test: skip: why -->`);
    }
  }
  if (tsFiles.length) {
    writeFileSync(p.path('tsconfig.json'), JSON.stringify({ ...TSCONFIG, files: tsFiles }, null, 1));
    const r = await execa(process.execPath, [path.join(REPO, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.json'], { cwd: p.dir, reject: false, all: true });
    assert.is(r.exitCode, 0, `${doc}: ts blocks do not type-check:\n${r.all}`);
  }
}

const docs = suite('docs');
const docsDir = path.join(REPO, 'docs');
const files = [path.join(REPO, 'README.md'), ...(existsSync(docsDir) ? readdirSync(docsDir).filter((f) => f.endsWith('.md')).sort().map((f) => path.join(docsDir, f)) : [])];

docs('the block extractor finds languages, file names and skips', () => {
  const md = ['# t', '', '<!-- file: a.ts -->', '```ts', 'const a = 1;', '```', '', '<!-- docs-test: skip: not a command -->', '```sh', 'orch [x]', '```', '```text', 'out', '```'].join('\n');
  const b = extractBlocks('t.md', md);
  assert.equal(
    b.map((x) => [x.lang, x.file, x.skip, x.code]),
    [
      ['ts', 'a.ts', undefined, 'const a = 1;\n'],
      ['sh', undefined, 'not a command', 'orch [x]\n'],
      ['text', undefined, undefined, 'out\n'],
    ],
  );
  assert.ok(lineMatcher('built in … s (…)').test('built in 0.41 s (0123456789ab)'));
  assert.not.ok(lineMatcher('built in … s').test('built at 3 s'));
});

// Documents are independent: run two at a time (this machine has two cores), each test
// waiting for its own document's result.
const slots: Promise<void>[] = [];
for (const file of files) {
  const rel = path.relative(REPO, file);
  const blocks = extractBlocks(rel, readFileSync(file, 'utf8'));
  const before = slots.length >= 2 ? slots[slots.length - 2] : Promise.resolve();
  const run = before.catch(() => undefined).then(() => runDoc(rel, blocks));
  slots.push(run.catch(() => undefined));
  run.catch(() => undefined); // reported by its test below
  docs(`${rel}: every code block runs (${blocks.length} blocks)`, async () => {
    await run;
  });
}

docs.run();
