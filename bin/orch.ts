#!/usr/bin/env node
import { readFileSync } from 'node:fs';
import yargs, { type Argv } from 'yargs';
import { hideBin } from 'yargs/helpers';
import type { RunMode } from '../cli/runCommand.js';
import { didYouMean, exitOnError, unknownEnvMode } from '../cli/failure.js';
import { badEntries } from '../cli/badEntries.js';

// Argument parsing only: every command lives in cli/. Each is imported when it runs, so
// `--help`, `--version`, a usage error and a cache hit load only what they use (orch
// starts once per command; most of its start was loading modules no command needed).

// dist/bin/orch.js -> the package's own package.json (in a checkout and when installed)
const VERSION = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;

const DEBUG_OPTIONS = ['print-ir-after', 'time-passes', 'verify-ir', 'debug', 'verbose'];

const MODES = ['python', 'build', 'build-and-run', 'run'] as const;

function common<T>(y: Argv<T>) {
  return y
    .option('preset', { type: 'string', describe: 'preset name (cpu, cpu-native, debug, cuda, cuda-h100, cuda-a100)' })
    .option('externals', { type: 'string', describe: 'externals as JSON, e.g. {"N": 2, "i_start": {"axis": "I", "index": 0, "offset": 3}}' })
    .option('define', { type: 'string', array: true, describe: 'compile-time argument name=value (repeatable)' })
    .option('json', { type: 'boolean', describe: 'print one JSON object' })
    .option('quiet', { type: 'boolean', alias: 'q', describe: 'print nothing but errors' })
    .option('verbose', { type: 'boolean', describe: 'keep raw compiler output in diagnostics' })
    .option('print-ir-after', { type: 'string', array: true, describe: 'print the IR after a pass (or all)' })
    .option('time-passes', { type: 'boolean', describe: 'print the time spent in each pass' })
    .option('verify-ir', { type: 'boolean', describe: 'verify the IR after every pass' })
    .option('debug', { type: 'boolean', describe: 'insert debug checkers (NaN, negative tracers, negative delp)' })
    .option('config', { type: 'string', describe: 'path to orch.config.ts (default: found from the working directory)' });
}

/** A usage error as `orch: what` and, where there is one, `hint: did you mean ...`. */
function usageMessage(msg: string, argv: string[], known: string[]): string {
  const command = /^Did you mean (\S+)\?$/.exec(msg)?.[1];
  if (command) return `orch: unknown command '${argv[0]}'\nhint: did you mean 'orch ${command}'?\n`;
  const unknown = /^Unknown arguments?: (.+)$/.exec(msg)?.[1].split(', ');
  if (!unknown) return `orch: ${msg}\n`;
  const flag = (u: string) => (u.length > 1 ? `--${u}` : `-${u}`);
  const dashed = (k: string) => k.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
  const lines = [`orch: unknown option${unknown.length > 1 ? 's' : ''} ${unknown.map(flag).join(', ')}`];
  for (const u of unknown) {
    const guess = didYouMean(u, known.filter((k) => k.length > 1).map(dashed));
    if (guess) lines.push(`hint: did you mean --${guess}${unknown.length > 1 ? ` (for ${flag(u)})` : ''}?`);
  }
  return `${lines.join('\n')}\n`;
}

function splitList(v: string[] | undefined): string[] | undefined {
  return v?.flatMap((x) => x.split(',')).filter(Boolean);
}

/** Options whose value may start with a minus (--origin -1,0,0), which yargs would read as a flag. */
const SIGNED_LISTS = ['--origin', '--domain', '--budget-s', '--runs', '--shape', '--rank-domain', '--repeat'];

function joinSignedValues(argv: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    if (SIGNED_LISTS.includes(argv[i]) && /^-[\d.]/.test(argv[i + 1] ?? '')) out.push(`${argv[i]}=${argv[++i]}`);
    else out.push(argv[i]);
  }
  return out;
}

async function main(rawArgv: string[]): Promise<number> {
  const argv = joinSignedValues(rawArgv);
  let code = 0;
  const envMode = process.env.ORCH_MODE as RunMode | 'build' | undefined;
  const parser = yargs(argv);
  // yargs has getOptions() (the options of the command being parsed); its types lack it
  const knownOptions = () => Object.keys((parser as unknown as { getOptions(): { key: Record<string, unknown> } }).getOptions().key);
  // Before running a command, yargs renders its whole help in case a later failure shows
  // it; orch's failures print one line (see .fail below), so that rendering, a tenth of
  // every start, is skipped. --help renders as before.
  const usage = (parser as unknown as { getInternalMethods?(): { getUsageInstance?(): { cacheHelpMessage?: () => void } } }).getInternalMethods?.().getUsageInstance?.();
  if (usage?.cacheHelpMessage) usage.cacheHelpMessage = () => undefined;
  await parser
    .scriptName('orch')
    .strict()
    .command(
      'build [paths..]',
      'build every entry of the given modules (or of the config modules)',
      (y) =>
        common(y)
          .positional('paths', { type: 'string', array: true, default: [] as string[], describe: 'modules (file.py or file.py:entry), folders or globs' })
          .option('watch', { type: 'boolean', alias: 'w', describe: 'rebuild affected modules when a file the build read changes' })
          .option('poll', { type: 'number', describe: 'with --watch: poll every N ms instead of file system events' })
          .option('layout', { type: 'string', describe: 'rank layout NXxNY: build each distinct code path (1 for 1x1, 4 for 2x2, 9 for 3x3+)' })
          .option('rank', { type: 'number', describe: 'with --layout: only the code path of this rank' })
          .option('rank-domain', { type: 'string', describe: 'with --layout: NX,NY,NZ compute domain of one rank' })
          .option('halo', { type: 'number', describe: 'with --layout: halo width (default 3)' })
          .option('build', { type: 'boolean', default: true, describe: 'build on a miss; --no-build only looks entries up (a missing or stale entry is an error naming why)' })
          .option('bad-entry', { type: 'string', array: true, describe: 'KEY=REASON: a cached entry whose library failed to load; marked bad and rebuilt (the Python package passes it)' })
          .option('closure', { type: 'string', describe: 'with one file.py:Class target: the resolved closure (JSON file) of an orchestrated component, as orch.ndsl writes it' })
          .group(['layout', 'rank', 'rank-domain', 'halo'], 'Rank layout:')
          .group(DEBUG_OPTIONS, 'Inspecting the pipeline:')
          .example('$0 build smooth.py', 'build every stencil and program of smooth.py')
          .example('$0 build --watch', "rebuild the config's modules whenever a file they read changes")
          .example('$0 build tile.py --layout 3x3 --rank-domain 10,10,4', 'build the code paths of a 3x3 rank layout'),
      async (a) => {
        const opts = { ...a, paths: a.paths as string[], noBuild: a.build === false, badEntries: badEntries(a.badEntry), printIrAfter: splitList(a.printIrAfter), verifyIr: a.verifyIr };
        code = a.watch ? await (await import('../cli/watchCommand.js')).watchCommand(opts) : await (await import('../cli/buildCommand.js')).buildCommand(opts);
      },
    )
    .command(
      'run <target>',
      'run one stencil or program (file.py[:entry]) on fields from .npy files',
      (y) =>
        common(y)
          .positional('target', { type: 'string', demandOption: true, describe: 'module.py or module.py:entry' })
          .option('mode', { choices: MODES, default: (envMode && (MODES as readonly string[]).includes(envMode) ? envMode : 'python') as (typeof MODES)[number], describe: 'python interprets; build builds and exits; build-and-run builds on a miss, then runs; run needs a cache hit (also ORCH_MODE)' })
          .option('domain', { type: 'string', describe: 'NX,NY,NZ' })
          .option('origin', { type: 'string', describe: 'I,J,K for all fields, or JSON per field {"_all_": [..], "q": [..]}' })
          .option('scalars', { type: 'string', describe: 'scalar arguments as JSON' })
          .option('in', { type: 'string', array: true, describe: 'field input name=path.npy (repeatable)' })
          .option('out', { type: 'string', describe: 'folder to write every field after the call' })
          .option('repeat', { type: 'string', default: '0', describe: 'time N further calls' })
          .option('check', { type: 'boolean', describe: 'also run the interpreter and compare every field' })
          .option('shape', { type: 'string', describe: 'NX,NY,NZ: fill fields not given with --in with deterministic values' })
          .option('layout', { type: 'string', describe: 'rank layout NXxNY (with --rank): run the code path of that rank' })
          .option('rank', { type: 'number', describe: 'with --layout: the rank of this process (default: the MPI launcher\'s)' })
          .option('boundary', { type: 'string', describe: 'tile boundary of halo exchanges: edges (default) or periodic (also ORCH_BOUNDARY)' })
          .option('rank-domain', { type: 'string', describe: 'with --layout: NX,NY,NZ compute domain of one rank' })
          .option('halo', { type: 'number', describe: 'with --layout: halo width (default 3)' })
          .group(['domain', 'origin', 'scalars', 'in', 'out', 'shape'], 'Arguments of the call:')
          .group(['layout', 'rank', 'boundary', 'rank-domain', 'halo'], 'Rank layout:')
          .group(DEBUG_OPTIONS, 'Inspecting the pipeline:')
          .example(`$0 run smooth.py:smooth --shape 8,8,4 --scalars '{"w": 0.1}' --out out`, 'interpret smooth on generated fields, write the fields to out/')
          .example('$0 run smooth.py:smooth --mode build-and-run --shape 8,8,4 --scalars \'{"w": 0.1}\' --check --repeat 10', 'build, time 10 calls and compare with the interpreter'),
      async (a) => {
        if (envMode && !(MODES as readonly string[]).includes(envMode) && !argv.some((x) => x === '--mode' || x.startsWith('--mode='))) {
          throw unknownEnvMode(envMode, MODES.join(', '));
        }
        const { runCommand } = await import('../cli/runCommand.js');
        code = await runCommand({ ...a, target: a.target as string, mode: a.mode, printIrAfter: splitList(a.printIrAfter), verifyIr: a.verifyIr, repeat: a.repeat });
      },
    )
    .command(
      'report [paths..]',
      'build, then write one HTML page: where the build time went (per pass, per entry) and where the memory goes (per array)',
      (y) =>
        common(y)
          .positional('paths', { type: 'string', array: true, default: [] as string[], describe: 'modules, folders or globs (default: the config modules)' })
          .option('domain', { type: 'string', default: '192,192,80', describe: 'NX,NY,NZ: size the memory for arguments of this shape' })
          .option('output', { type: 'string', alias: 'o', default: 'orch-report.html', describe: 'the page to write' })
          .group(DEBUG_OPTIONS, 'Inspecting the pipeline:')
          .example('$0 report smooth.py --domain 48,48,80 -o report.html', 'time every pass of a build of smooth.py and size its arrays for 48x48x80'),
      async (a) => {
        code = await (await import('../cli/reportCommand.js')).reportCommand({ ...a, paths: a.paths as string[], printIrAfter: splitList(a.printIrAfter), verifyIr: a.verifyIr });
      },
    )
    .command(
      'tune <target>',
      'search tile sizes, loop orders and schedules for the fastest build of one entry on this machine; every candidate must match the interpreter bit for bit',
      (y) =>
        common(y)
          .positional('target', { type: 'string', demandOption: true, describe: 'module.py or module.py:entry' })
          .option('domain', { type: 'string', describe: 'NX,NY,NZ: the compute domain to tune for (required)' })
          .option('halo', { type: 'number', describe: 'points of halo around the domain along I and J (default 3)' })
          .option('scalars', { type: 'string', describe: 'scalar arguments as JSON' })
          .option('budget-s', { type: 'string', describe: 'seconds after which no further schedule is tried (default 300)' })
          .option('runs', { type: 'string', describe: 'timed calls per schedule; the median decides (default 20)' })
          .option('write-preset', { type: 'string', describe: 'write the winner as NAME.preset.ts beside the config (import it as the config\'s preset)' })
          .option('write-cache', { type: 'boolean', describe: "record the winner for this entry in the cache: later builds of the entry with this preset use it" })
          .group(['domain', 'halo', 'scalars'], 'Arguments of the call:')
          .group(['budget-s', 'runs', 'write-preset', 'write-cache'], 'Search:')
          .example('$0 tune hdiff.py:hdiff --domain 128,128,80 --scalars \'{"dt": 0.01}\' --write-preset tuned', 'find the fastest schedule of hdiff at 128x128x80, write tuned.preset.ts'),
      async (a) => {
        code = await (await import('../cli/tuneCommand.js')).tuneCommand({ ...a, target: a.target as string, budgetS: a.budgetS, writePreset: a.writePreset, writeCache: a.writeCache, printIrAfter: splitList(a.printIrAfter) });
      },
    )
    .command(
      'serve',
      'run entries on the reference interpreter for requests framed on stdin, fields as raw bytes (for the Python package)',
      (y) => common(y),
      async (a) => {
        code = await (await import('../cli/serveCommand.js')).serveCommand(a);
      },
    )
    .command(
      'clean',
      'remove the cache folders under the cache root, or evict old variants (--older-than, --max-size)',
      (y) =>
        y
          .option('quiet', { type: 'boolean', alias: 'q' })
          .option('json', { type: 'boolean', describe: 'print one JSON object' })
          .option('older-than', { type: 'string', describe: 'remove only variants not used for this long: 45s, 30m, 12h, 7d, 2w' })
          .option('max-size', { type: 'string', describe: 'then remove least recently used variants until the cache fits: 500M, 2G, 64Ki' })
          .option('dry-run', { type: 'boolean', describe: 'say what would be removed, remove nothing' })
          .example('$0 clean --older-than 7d', 'remove the variants no build or run used for a week')
          .example('$0 clean --max-size 500M', 'keep the cache under 500 MB, dropping least recently used variants first'),
      async (a) => {
        code = await (await import('../cli/cleanCommand.js')).cleanCommand(a);
      },
    )
    .command(
      'info [module]',
      'list cache entries: keys, hits and misses, last miss reason, memory and build info',
      (y) =>
        y
          .positional('module', { type: 'string' })
          .option('json', { type: 'boolean' })
          .option('codepath', { type: 'string', default: 'A' })
          .option('domain', { type: 'string', describe: 'NX,NY,NZ: the memory report in bytes for arguments of this shape' })
          .option('stats', { type: 'boolean', describe: 'totals of the whole cache root: entries, variants, hits, misses, bytes per module (like ccache -s)' })
          .example('$0 info --stats', 'how big the cache is, and how often it hit')
          .example('$0 info smooth.py --domain 192,192,80', 'the memory of each array of smooth.py for 192x192x80 fields'),
      async (a) => {
        code = a.stats ? await (await import('../cli/statsCommand.js')).statsCommand(a) : await (await import('../cli/infoCommand.js')).infoCommand(a);
      },
    )
    .example('$0 build smooth.py', 'build the stencils and programs of smooth.py into the cache')
    .example('$0 run smooth.py:smooth --mode build-and-run --shape 8,8,4 --check', 'build, run once and compare with the interpreter')
    .example('$0 info', 'list the cache entries')
    .completion('completion', 'print a shell completion script (orch completion >> ~/.bashrc)')
    .demandCommand(1, 'name a command: build, run, tune, report, clean or info')
    .recommendCommands()
    .fail((msg, err) => {
      if (err) throw err;
      process.stderr.write(`${usageMessage(msg, argv, knownOptions())}Run 'orch --help' for usage.\n`);
      process.exit(2);
    })
    .help()
    .version(VERSION)
    .parseAsync();
  return code;
}

main(hideBin(process.argv)).then(
  (code) => process.exit(code),
  (e: unknown) => exitOnError(e, process.argv.includes('--verbose')),
);
