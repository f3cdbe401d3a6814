import { cpSync, existsSync, linkSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, symlinkSync, writeFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import os from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { REPO } from './TempProject.js';

/**
 * orch as a user gets it, outside the checkout: this checkout packed with `npm pack` into
 * `<root>/orch/orch-<version>.tgz`, and a project `<root>/template` made by running the
 * README's install blocks (`<!-- docs-test: setup -->`) there, verbatim. Done once per test
 * run: test/run.ts gives its files one ORCH_TEST_RUN_DIR, where the first process to ask
 * installs and the others wait for it (a file run alone installs for itself). Each test gets
 * the template in its own folder: its files copied, node_modules and .venv hard-linked.
 */

export interface InstalledOrch {
  root: string;
  tarball: string;
  template: string;
  /** A fresh copy of the installed project, `<root>/<name>` (its dependency trees hard-linked). */
  project(name: string): string;
}

/** The README's install blocks: every sh block right after `<!-- docs-test: setup -->`. */
export function setupBlocks(readme: string): string[] {
  const lines = readme.split('\n');
  const blocks: string[] = [];
  for (let i = 1; i < lines.length; i++) {
    if (!/^```sh\s*$/.test(lines[i]) || !/^<!--\s*docs-test:\s*setup\s*-->$/.test(lines[i - 1].trim())) continue;
    const body: string[] = [];
    for (i++; i < lines.length && !/^```\s*$/.test(lines[i]); i++) body.push(lines[i]);
    blocks.push(`${body.join('\n')}\n`);
  }
  return blocks;
}

/** Offline-first, so the install reads the npm cache `npm ci` filled; quiet about funding. */
export const NPM_ENV = { npm_config_prefer_offline: 'true', npm_config_fund: 'false', npm_config_audit: 'false', npm_config_update_notifier: 'false' };

let installing: Promise<InstalledOrch> | undefined;

export function installedOrch(): Promise<InstalledOrch> {
  const runDir = process.env.ORCH_TEST_RUN_DIR;
  installing ??= runDir ? sharedInstall(runDir) : install(mkdtempSync(path.join(os.tmpdir(), 'orch-installed-')));
  return installing;
}

/** The longest a process waits for another's install (npm and pip from their caches). */
const INSTALL_WAIT_MS = 15 * 60_000;

/**
 * One install per run: mkdir is atomic, so one process wins `installed/` and installs; it
 * leaves `done` (or `failed`, with the reason) beside it, which the others poll for.
 */
async function sharedInstall(runDir: string): Promise<InstalledOrch> {
  const root = path.join(runDir, 'installed');
  const done = path.join(runDir, 'installed.done');
  const failed = path.join(runDir, 'installed.failed');
  let mine = true;
  try {
    mkdirSync(root);
  } catch {
    mine = false;
  }
  if (mine) {
    try {
      const o = await install(root);
      writeFileSync(done, '');
      return o;
    } catch (e) {
      writeFileSync(failed, e instanceof Error ? e.message : String(e));
      throw e;
    }
  }
  for (const start = Date.now(); !existsSync(done); await sleep(500)) {
    if (existsSync(failed)) throw new Error(`the install another test file made failed:\n${readFileSync(failed, 'utf8')}`);
    if (Date.now() - start > INSTALL_WAIT_MS) throw new Error(`waited ${INSTALL_WAIT_MS / 60_000} min for another test file's install in ${root}`);
  }
  return installedAt(root);
}

async function install(root: string): Promise<InstalledOrch> {
  const { version } = JSON.parse(readFileSync(path.join(REPO, 'package.json'), 'utf8')) as { version: string };
  mkdirSync(path.join(root, 'orch'));
  // dist/ is already built (npm test builds first), so prepare need not run tsc again
  const pack = await execa('npm', ['pack', '--ignore-scripts', '--pack-destination', path.join(root, 'orch')], { cwd: REPO, env: NPM_ENV, reject: false, all: true });
  const tarball = path.join(root, 'orch', `orch-${version}.tgz`);
  if (pack.exitCode !== 0 || !existsSync(tarball)) throw new Error(`npm pack failed (exit ${pack.exitCode}), or made no ${tarball}:\n${pack.all}`);
  const template = path.join(root, 'template');
  mkdirSync(template);
  const blocks = setupBlocks(readFileSync(path.join(REPO, 'README.md'), 'utf8'));
  if (!blocks.length) throw new Error('README.md has no install block (<!-- docs-test: setup --> before a ```sh block)');
  for (const code of blocks) {
    const r = await execa('bash', ['-euo', 'pipefail', '-c', code], { cwd: template, env: NPM_ENV, reject: false, all: true });
    if (r.exitCode !== 0) throw new Error(`README install block failed (exit ${r.exitCode}) in ${template}:\n${code}\n${r.all}`);
  }
  return installedAt(root);
}

function installedAt(root: string): InstalledOrch {
  const { version } = JSON.parse(readFileSync(path.join(REPO, 'package.json'), 'utf8')) as { version: string };
  // processes sharing the install must not share project folders: each gets its own
  const projects = mkdtempSync(path.join(root, 'projects-'));
  const template = path.join(root, 'template');
  return {
    root,
    tarball: path.join(root, 'orch', `orch-${version}.tgz`),
    template,
    project(name: string) {
      const dir = path.join(projects, name);
      mkdirSync(dir);
      for (const e of readdirSync(template, { withFileTypes: true })) {
        const from = path.join(template, e.name);
        if (e.isDirectory() && LINKED.has(e.name)) linkTree(from, path.join(dir, e.name));
        else cpSync(from, path.join(dir, e.name), { recursive: true, verbatimSymlinks: true });
      }
      return dir;
    },
  };
}

/**
 * The installed dependency trees, which a project gets as hard links rather than copies:
 * copying their ~4,500 files cost about a second of CPU per project (more under load; 18
 * projects a run), linking a tenth of that. Nothing writes into them in place: npm and pip
 * replace files (write and rename), python writes new .pyc files, and the tests and docs
 * write only files of their own. Everything else (package.json, ...) is copied.
 */
const LINKED = new Set(['node_modules', '.venv']);

/** `from` rebuilt at `to`: folders made, files hard-linked, symlinks recreated verbatim. */
function linkTree(from: string, to: string): void {
  mkdirSync(to);
  for (const e of readdirSync(from, { withFileTypes: true })) {
    const a = path.join(from, e.name);
    const b = path.join(to, e.name);
    if (e.isDirectory()) linkTree(a, b);
    else if (e.isSymbolicLink()) symlinkSync(readlinkSync(a), b);
    else linkSync(a, b);
  }
}
