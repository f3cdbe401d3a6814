import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { REPO } from './TempProject.js';

/**
 * orch as a user gets it, outside the checkout: this checkout packed with `npm pack` into
 * `<root>/orch/orch-<version>.tgz`, and a project `<root>/template` made by running the
 * README's install blocks (`<!-- docs-test: setup -->`) there, verbatim. Done once per test
 * process; each test copies the template (node_modules, .venv and all) into its own folder.
 */

export interface InstalledOrch {
  root: string;
  tarball: string;
  template: string;
  /** A fresh copy of the installed project, `<root>/<name>`. */
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
  installing ??= install();
  return installing;
}

async function install(): Promise<InstalledOrch> {
  const root = mkdtempSync(path.join(os.tmpdir(), 'orch-installed-'));
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
  return {
    root,
    tarball,
    template,
    project(name: string) {
      const dir = path.join(root, name);
      cpSync(template, dir, { recursive: true, verbatimSymlinks: true });
      return dir;
    },
  };
}
