import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { execa } from 'execa';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { installedOrch, NPM_ENV } from './installedOrch.js';
import { REPO } from './TempProject.js';

/**
 * Every code block of docs/*.md and README.md runs, in document order, in one project per
 * document outside the checkout: a copy of the project the README's install blocks made
 * from the packed tarball (see installedOrch.ts), so `npx orch`, `import ... from 'orch'`
 * and the Python package in `.venv` are what a user installs, with nothing added.
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
 * (`<!-- docs-test: skip: why -->`); `<!-- docs-test: setup -->` marks the README's install
blocks, which made the project already. Any other language is an error, so no block goes untested.
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
    const skip = /^<!--\s*docs-test:\s*setup\s*-->$/.test(marker.trim()) ? 'an install block (run by installedOrch)' : /^<!--\s*docs-test:\s*skip:\s*(.+?)\s*-->$/.exec(marker.trim())?.[1];
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

/**
 * The real npx, found on PATH when the test starts (the shim below hands it every command
 * the project does not install).
 */
function realNpx(): string {
  for (const d of (process.env.PATH ?? '').split(path.delimiter)) {
    const f = path.join(d, 'npx');
    if (d && existsSync(f)) return f;
  }
  throw new Error('npx is not on PATH: the docs run `npx orch` as a user does');
}

/**
 * An `npx` for the documents after the README: it does what npx does once its lookup has
 * found a command the project installed, running `node_modules/.bin/<command>` of the
 * nearest folder up from the working one, with that `.bin` on PATH, and hands anything
 * else to the real npx. npx itself is npm starting up (~0.4 s of CPU a call, ~60 calls
 * over the docs) and nothing of orch's; README.md, the page a user follows first, runs
 * the real npx for each of its commands, so the lookup stays tested.
 */
function npxShim(project: string): string {
  const bin = `${project}.bin`;
  mkdirSync(bin, { recursive: true });
  const shim = path.join(bin, 'npx');
  writeFileSync(
    shim,
    [
      '#!/usr/bin/env bash',
      'if [ "$#" -gt 0 ] && [[ "$1" != -* ]]; then',
      '  d=$PWD',
      '  while :; do',
      '    if [ -x "$d/node_modules/.bin/$1" ]; then',
      '      command=$1',
      '      shift',
      '      PATH="$d/node_modules/.bin:$PATH" exec "$d/node_modules/.bin/$command" "$@"',
      '    fi',
      '    [ "$d" = / ] && break',
      '    d=$(dirname "$d")',
      '  done',
      'fi',
      `exec ${JSON.stringify(realNpx())} "$@"`,
      '',
    ].join('\n'),
    { mode: 0o755 },
  );
  return bin;
}

async function runDoc(doc: string, blocks: Block[]): Promise<void> {
  const installed = await installedOrch();
  const dir = installed.project(`docs-${path.basename(doc, '.md')}`);
  const write = (rel: string, text: string) => {
    const f = path.join(dir, rel);
    mkdirSync(path.dirname(f), { recursive: true });
    writeFileSync(f, text);
    return f;
  };
  // ORCH_REPO: only docs/ndsl.md reads it, for the NDSL test double in this checkout
  // (test/python/ndsl_double), which no package ships; every other example uses only the install
  const env: Record<string, string> = { ...NPM_ENV, ORCH_REPO: REPO };
  if (doc !== 'README.md') env.PATH = `${npxShim(dir)}${path.delimiter}${process.env.PATH ?? ''}`;
  const tsFiles: string[] = [];
  let lastOutput: string | undefined;
  let n = 0;
  for (const b of blocks) {
    n++;
    const where = `${b.doc}:${b.line}`;
    if (b.skip) continue;
    if (b.file) write(b.file, b.code);
    switch (b.lang) {
      case 'sh':
      case 'bash': {
        // one pipe for both streams, so the output keeps the order a terminal shows: with two
        // pipes, one command's stderr and the next command's stdout could be read either way
        // round (docs/ndsl.md's Build then Run failed so under load)
        const r = await execa('bash', ['-euo', 'pipefail', '-c', `exec 2>&1\n${b.code}`], { cwd: dir, env, reject: false, all: true });
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
        const file = b.file ?? write(`.docs/block${n}.ts`, b.code);
        tsFiles.push(path.resolve(dir, file));
        if (!b.file) {
          const r = await execa(process.execPath, [path.join(REPO, 'node_modules/jiti/lib/jiti-cli.mjs'), file], { cwd: dir, env, reject: false, all: true });
          assert.is(r.exitCode, 0, `${where}: ts block failed:\n${b.code}\n${r.all}`);
          lastOutput = String(r.all);
        }
        break;
      }
      case 'python':
      case 'py': {
        if (b.file) {
          const r = await execa('python3', ['-m', 'py_compile', b.file], { cwd: dir, env, reject: false, all: true });
          assert.is(r.exitCode, 0, `${where}: python file does not compile:\n${r.all}`);
        } else {
          const r = await execa('python3', ['-c', b.code], { cwd: dir, env, reject: false, all: true });
          assert.is(r.exitCode, 0, `${where}: python block failed:\n${b.code}\n${r.all}`);
          lastOutput = String(r.all);
        }
        break;
      }
      case 'c': {
        const src = b.file ?? write(`.docs/block${n}.c`, b.code);
        const r = await execa('gcc', ['-fsyntax-only', '-Wall', '-Werror', `-I${path.join(REPO, 'native')}`, '-I.', src], { cwd: dir, reject: false, all: true });
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
    writeFileSync(path.join(dir, 'tsconfig.json'), JSON.stringify({ ...TSCONFIG, files: tsFiles }, null, 1));
    const r = await execa(process.execPath, [path.join(REPO, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.json'], { cwd: dir, reject: false, all: true });
    assert.is(r.exitCode, 0, `${doc}: ts blocks do not type-check:\n${r.all}`);
  }
}

const docs = suite('docs');
const docsDir = path.join(REPO, 'docs');
const allFiles = [path.join(REPO, 'README.md'), ...(existsSync(docsDir) ? readdirSync(docsDir).filter((f) => f.endsWith('.md')).sort().map((f) => path.join(docsDir, f)) : [])];
// ORCH_DOCS_ONLY=<regex over file names> runs some documents, for working on one
const only = process.env.ORCH_DOCS_ONLY ? new RegExp(process.env.ORCH_DOCS_ONLY) : undefined;
const files = only ? allFiles.filter((f) => only.test(path.basename(f))) : allFiles;

docs('the block extractor finds languages, file names and skips', () => {
  const md = ['# t', '', '<!-- file: a.ts -->', '```ts', 'const a = 1;', '```', '', '<!-- docs-test: skip: not a command -->', '```sh', 'orch [x]', '```', '```text', 'out', '```', '<!-- docs-test: setup -->', '```sh', 'npm i', '```'].join('\n');
  const b = extractBlocks('t.md', md);
  assert.equal(
    b.map((x) => [x.lang, x.file, x.skip, x.code]),
    [
      ['ts', 'a.ts', undefined, 'const a = 1;\n'],
      ['sh', undefined, 'not a command', 'orch [x]\n'],
      ['text', undefined, undefined, 'out\n'],
      ['sh', undefined, 'an install block (run by installedOrch)', 'npm i\n'],
    ],
  );
  assert.ok(lineMatcher('built in … s (…)').test('built in 0.41 s (0123456789ab)'));
  assert.not.ok(lineMatcher('built in … s').test('built at 3 s'));
});

// Documents are independent: run two at a time (this machine has two cores), started by
// the first document's test (not at import), each test waiting for its own document.
const documents = files.map((file) => {
  const rel = path.relative(REPO, file);
  return { rel, blocks: extractBlocks(rel, readFileSync(file, 'utf8')) };
});
let runs: Map<string, Promise<void>> | undefined;
function startAll(): Map<string, Promise<void>> {
  if (runs) return runs;
  runs = new Map();
  const slots: Promise<void>[] = [];
  for (const { rel, blocks } of documents) {
    const before = slots.length >= 2 ? slots[slots.length - 2] : Promise.resolve();
    const run = before.catch(() => undefined).then(() => runDoc(rel, blocks));
    slots.push(run.catch(() => undefined));
    run.catch(() => undefined); // reported by its test below
    runs.set(rel, run);
  }
  return runs;
}
for (const { rel, blocks } of documents) {
  docs(`${rel}: every code block runs (${blocks.length} blocks)`, async () => {
    await startAll().get(rel);
  });
}

docs.run();
