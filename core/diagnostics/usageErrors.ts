import { OrchError } from '../diagnostics.js';
import type { SourceLoc } from '../ir/types.js';
import { diagnostic } from './codes.js';

// The errors of the command line (exit status 2): one factory per distinct error (after Rollup's src/utils/logs.ts),
// grouped under the code it reports, in the order of CODES in codes.ts.

// E_USAGE_TARGET: a target that is not path/to/module.py[:entry]

export function ambiguousTarget(message: string, basename: string): OrchError {
  return new OrchError(diagnostic('E_USAGE_TARGET', message, { hint: `name one: ${basename}:<entry>` }));
}

export function targetNotModule(target: string): OrchError {
  return new OrchError(diagnostic('E_USAGE_TARGET', `expected a .py module (optionally with :entry), got '${target}'`, { hint: 'write path/to/module.py:entry' }));
}

export function serveNeedsEntry(target: string): OrchError {
  return new OrchError(diagnostic('E_USAGE_TARGET', `serve needs an entry: got '${target}'`, { hint: 'write path/to/module.py:entry' }));
}

// E_USAGE_PATH: no such module or folder

export function noSuchModule(path: string): OrchError {
  return new OrchError(diagnostic('E_USAGE_PATH', `no such module or folder: ${path}`, { hint: 'pass .py files, folders or globs' }));
}

export function noModulePaths(message: string): OrchError {
  return new OrchError(diagnostic('E_USAGE_PATH', message, { hint: "pass module paths, or list them in orch.config.ts as modules: ['src/**/*.py']" }));
}

export function noSuchModulePath(shown: string): OrchError {
  return new OrchError(diagnostic('E_USAGE_PATH', `no such module: ${shown}`, { hint: 'pass an existing .py file' }));
}

// E_USAGE_MODE: a mode (--mode, ORCH_MODE) orch does not know

export function unknownEnvMode(envMode: string, modes: string): OrchError {
  return new OrchError(diagnostic('E_USAGE_MODE', `ORCH_MODE=${envMode} is not a mode orch knows`, { hint: `use one of ${modes}` }));
}

// E_USAGE_SHAPE: --shape that is not integers separated by commas

export function shapeNotThree(shapeCount: number, text: string): OrchError {
  return new OrchError(diagnostic('E_USAGE_SHAPE', `--shape expects three sizes NX,NY,NZ, got ${shapeCount} ('${text}')`, { hint: 'write --shape 8,8,4' }));
}

export function shapeNegative(shape: number, axis: string, text: string): OrchError {
  return new OrchError(diagnostic('E_USAGE_SHAPE', `--shape sizes must not be negative, got ${shape} along ${axis} ('${text}')`, { hint: 'write --shape 8,8,4' }));
}

export function shapeTooLarge(text: string, asked: string, askedBytes: number, fields: number, available: string, largest: number): OrchError {
  return new OrchError(diagnostic('E_USAGE_SHAPE', `--shape ${text} asks for ${asked} (${askedBytes} bytes) for ${fields} field(s), but this machine has ${available} of memory${largest > 2 ** 32 ? ' and one array holds at most 2^32 elements' : ''}`, { hint: 'give a smaller --shape' }));
}

// E_USAGE_DOMAIN: --domain that is not three non-negative integers

export function domainNotThreeSizes(domain: string): OrchError {
  return new OrchError(diagnostic('E_USAGE_DOMAIN', `domain must be three non-negative integers, got ${domain}`, { hint: 'write --domain NX,NY,NZ' }));
}

export function domainEmpty(fmt: string, axis: string): OrchError {
  return new OrchError(diagnostic('E_USAGE_DOMAIN', `domain ${fmt} has no points along ${axis}; GT4Py refuses an empty compute domain`, { hint: 'give every axis of --domain at least one point' }));
}

export function tuneNeedsDomain(): OrchError {
  return new OrchError(diagnostic('E_USAGE_DOMAIN', 'orch tune needs --domain NX,NY,NZ: the compute domain to tune for', { hint: 'write --domain 128,128,80 (the size the program runs at)' }));
}

export function tuneDomainNotSizes(text: string): OrchError {
  return new OrchError(diagnostic('E_USAGE_DOMAIN', `--domain expects three sizes above 0, got '${text}'`, { hint: 'write --domain 128,128,80' }));
}

// E_USAGE_ORIGIN: --origin that does not fit the fields

export function originLengthMismatch(fmt: string, originCount: number, axes: string, zeros: string): OrchError {
  return new OrchError(diagnostic('E_USAGE_ORIGIN', `origin ${fmt} has ${originCount} entries, but the fields have axes ${axes}`, { hint: `give one index per axis: --origin ${zeros}` }));
}

export function originAllLengthMismatch(fmt: string, valueCount: number, axes: string, zeros: string): OrchError {
  return new OrchError(diagnostic('E_USAGE_ORIGIN', `origin _all_ ${fmt} has ${valueCount} entries, but the fields have axes ${axes}`, { hint: `give one index per axis: {"_all_": [${zeros}]}` }));
}

export function originForUnknownField(name: string, hint: string): OrchError {
  return new OrchError(diagnostic('E_USAGE_ORIGIN', `origin for '${name}', which is no field of the stencil`, { hint }));
}

export function originFieldLengthMismatch(name: string, ownCount: number, axes: string): OrchError {
  return new OrchError(diagnostic('E_USAGE_ORIGIN', `origin of '${name}' has ${ownCount} entries, but it is a ${axes} field`, { hint: `give one index per axis of ${name}` }));
}

export function originNotJson(message: string): OrchError {
  return new OrchError(diagnostic('E_USAGE_ORIGIN', `--origin is not valid JSON: ${message}`, { hint: `write --origin '{"_all_": [1, 1, 0], "ps": [1, 1]}'` }));
}

export function originJsonNotMap(): OrchError {
  return new OrchError(diagnostic('E_USAGE_ORIGIN', '--origin JSON must map field names (or _all_) to lists of integers', { hint: `write --origin '{"_all_": [1, 1, 0]}'` }));
}

// E_USAGE_REPEAT: --repeat that is not a count (0 or more)

export function repeatNotCount(written: string): OrchError {
  return new OrchError(diagnostic('E_USAGE_REPEAT', `--repeat expects a count of further calls (0 or more), got '${written}'`, { hint: 'write --repeat 10' }));
}

// E_USAGE_SCALARS: --scalars that is not a JSON object of numbers

export function scalarsNotJson(message: string): OrchError {
  return new OrchError(diagnostic('E_USAGE_SCALARS', `--scalars is not valid JSON: ${message}`, { hint: `write --scalars '{"dt": 30.0}'` }));
}

export function scalarsNotObject(): OrchError {
  return new OrchError(diagnostic('E_USAGE_SCALARS', '--scalars must be a JSON object of numbers and booleans', { hint: `write --scalars '{"dt": 30.0, "on": true}'` }));
}

// E_USAGE_EXTERNALS: --externals that is not a JSON object of values

export function externalsNotJson(message: string): OrchError {
  return new OrchError(diagnostic('E_USAGE_EXTERNALS', `--externals is not valid JSON: ${message}`, { hint: `write --externals '{"NAME": 1.0, "i_start": {"axis": "I", "index": 0, "offset": 3}}'` }));
}

export function externalsNotObject(): OrchError {
  return new OrchError(diagnostic('E_USAGE_EXTERNALS', '--externals must be a JSON object', { hint: `write --externals '{"NAME": value}'` }));
}

export function externalValueUnusable(key: string): OrchError {
  return new OrchError(diagnostic('E_USAGE_EXTERNALS', `external '${key}' has a value orch cannot use`, { hint: 'externals are numbers, booleans, axis indices {"axis": "I", "index": 0, "offset": 3}, axes {"axisObject": "I"}, namespaces {"namespace": "SimpleNamespace", "attrs": {...}} or helper functions {"function": "pkg.module.name"}' }));
}

// E_USAGE_DEFINE: --define that is not name=value

export function defineIntOutOfRange(name: string, value: number, entry: string, dtype: string, lowest: number, highest: number, example: number, loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_USAGE_DEFINE', `--define ${name}=${value}: compile-time argument '${name}' of '${entry}' is an int (${dtype}), which takes integers from ${lowest} to ${highest}`, { loc, hint: `write an integer, e.g. --define ${name}=${example}` }));
}

export function defineFloatNotFinite(name: string, value: number, entry: string, dtype: string, loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_USAGE_DEFINE', `--define ${name}=${value}: compile-time argument '${name}' of '${entry}' is a float (${dtype}), which takes finite numbers`, { loc, hint: `write a finite number, e.g. --define ${name}=1.0` }));
}

export function defineNotNameValue(text: string): OrchError {
  return new OrchError(diagnostic('E_USAGE_DEFINE', `--define expects name=value, got '${text}'`, { hint: 'write --define n_sub=4' }));
}

export function defineNotNumber(name: string, raw: string): OrchError {
  return new OrchError(diagnostic('E_USAGE_DEFINE', `--define ${name}: '${raw}' is not a number or boolean`, { hint: 'compile-time values are numbers or booleans' }));
}

// E_USAGE_DEFINE_NAME: --define of a name the entry has no compile-time argument for

export function defineNotUsable(name: string, what: string, loc: SourceLoc, length: number, hint: string): OrchError {
  return new OrchError(diagnostic('E_USAGE_DEFINE_NAME', `--define ${name}: ${what}`, { loc, length, hint }));
}

export function defineUnknownName(define: string, program: string, loc: SourceLoc, hint: string): OrchError {
  return new OrchError(diagnostic('E_USAGE_DEFINE_NAME', `--define ${define}: program '${program}' has no compile-time argument '${define}'`, { loc, hint }));
}

// E_USAGE_IN: --in that is not name=path.npy

export function inNotNamePath(written: string): OrchError {
  return new OrchError(diagnostic('E_USAGE_IN', `--in expects name=path.npy, got '${written}'`, { hint: 'write --in q=inputs/q.npy' }));
}

// E_USAGE_LAYOUT: --layout, --rank-domain or --halo that orch cannot use

export function layoutNotNxN(text: string): OrchError {
  return new OrchError(diagnostic('E_USAGE_LAYOUT', `--layout expects NXxNY (ranks along I and J of a tile), got '${text}'`, { hint: 'write --layout 3x3' }));
}

export function rankNeedsLayout(): OrchError {
  return new OrchError(diagnostic('E_USAGE_LAYOUT', '--rank and --rank-domain need --layout', { hint: 'write --layout 6x6 --rank 17 --rank-domain 48,48,79' }));
}

export function rankDomainNotSizes(rankDomain: string): OrchError {
  return new OrchError(diagnostic('E_USAGE_LAYOUT', `--rank-domain expects three positive integers NX,NY,NZ, got '${rankDomain}'`, { hint: 'write --rank-domain 48,48,79' }));
}

export function layoutNeedsRankDomain(): OrchError {
  return new OrchError(diagnostic('E_USAGE_LAYOUT', `a layout build needs the compute domain of one rank`, { hint: "pass --rank-domain NX,NY,NZ (or set layout: { layout: '3x3', domain: [nx, ny, nz] } in orch.config.ts)" }));
}

export function haloNegative(halo: number): OrchError {
  return new OrchError(diagnostic('E_USAGE_LAYOUT', `--halo must be a non-negative integer, got ${halo}`, { hint: 'write --halo 3' }));
}

export function layoutRunNeedsRank(layout: string | undefined, codepaths: string): OrchError {
  return new OrchError(diagnostic('E_USAGE_LAYOUT', `orch run --layout ${layout} needs --rank: a run is one rank, on one code path`, { hint: `add --rank R (this layout has code paths ${codepaths})` }));
}

// E_USAGE_RANK: --rank that is not a rank of the layout

export function rankOutsideLayout(rank: number, layoutText: string, perTile: number, last: number): OrchError {
  return new OrchError(diagnostic('E_USAGE_RANK', `rank ${rank} is outside layout ${layoutText} (6 tiles of ${perTile} ranks: 0..${last})`, { hint: 'pass the rank of this process, --rank 0 .. N-1' }));
}

export function rankNotNumber(rank: number): OrchError {
  return new OrchError(diagnostic('E_USAGE_RANK', `rank ${rank} is not a rank number`, { hint: 'ranks are 0 .. N-1' }));
}

// E_USAGE_BOUNDARY: an unknown tile boundary

export function unknownTileBoundary(text: string, boundaries: string): OrchError {
  return new OrchError(diagnostic('E_USAGE_BOUNDARY', `unknown tile boundary '${text}'`, { hint: `use one of: ${boundaries}` }));
}

// E_USAGE_CLOSURE: --closure that is not one readable closure file for the one class targeted

export function closureNotJson(from: string, message: string): OrchError {
  return new OrchError(diagnostic('E_USAGE_CLOSURE', `${from} is not valid JSON: ${message}`, { hint: 'the closure file is written by the orch Python package (orch.ndsl)' }));
}

export function closureFileInvalid(from: string, what: string): OrchError {
  return new OrchError(diagnostic('E_USAGE_CLOSURE', `${from}: ${what}`, { hint: 'the closure file is written by the orch Python package (orch.ndsl)' }));
}

export function closureNeedsOneClass(): OrchError {
  return new OrchError(diagnostic('E_USAGE_CLOSURE', '--closure needs exactly one file.py:Class target', { hint: 'write orch build comp.py:MyComponent --closure closure.json' }));
}

export function closureUnreadable(file: string, message: string): OrchError {
  return new OrchError(diagnostic('E_USAGE_CLOSURE', `cannot read ${file}: ${message}`, { hint: 'pass the path of a closure file written by orch.ndsl' }));
}

export function closureForOtherClass(file: string, file2: string, className: string, module: string, entry: string): OrchError {
  return new OrchError(diagnostic('E_USAGE_CLOSURE', `${file} describes ${file2}:${className}, not ${module}:${entry}`, { hint: 'target the class the closure describes' }));
}

// E_USAGE_SIZE: --max-size or cache.maxSize that is not a size

export function notSize(what: string, text: string): OrchError {
  return new OrchError(diagnostic('E_USAGE_SIZE', `${what} '${text}' is not a size`, { hint: 'write a number with an optional unit: 500M, 2G, 64Ki (K, M, G, T are powers of 1000; Ki, Mi, Gi, Ti of 1024)' }));
}

// E_USAGE_AGE: --older-than that is not a duration

export function notDuration(what: string, text: string): OrchError {
  return new OrchError(diagnostic('E_USAGE_AGE', `${what} '${text}' is not a duration`, { hint: 'write a number and a unit: 45s, 30m, 12h, 7d or 2w' }));
}

// E_USAGE_TUNE: orch tune options it cannot use (a budget or run count that is not positive, a preset name that is taken or not a name, --write-preset with --write-cache)

export function tuneOptionNotPositive(option: string, integer: boolean, text: string, fallback: number): OrchError {
  return new OrchError(diagnostic('E_USAGE_TUNE', `--${option} expects a ${integer ? 'whole number' : 'number'} above 0, got '${text}'`, { hint: `write --${option} ${fallback}` }));
}

export function tuneHaloNotWhole(halo: number | undefined): OrchError {
  return new OrchError(diagnostic('E_USAGE_TUNE', `--halo expects a whole number of points (0 or more), got '${halo}'`, { hint: 'write --halo 3' }));
}

export function writePresetAndCache(): OrchError {
  return new OrchError(diagnostic('E_USAGE_TUNE', '--write-preset and --write-cache both name where the winner goes', { hint: 'give one of them' }));
}

export function writePresetNotName(name: string): OrchError {
  return new OrchError(diagnostic('E_USAGE_TUNE', `--write-preset expects a name (letters, digits, - and _, starting with a letter), got '${name}'`, { hint: 'write --write-preset tuned' }));
}

export function writePresetShadows(name: string): OrchError {
  return new OrchError(diagnostic('E_USAGE_TUNE', `--write-preset ${name} would shadow the built-in preset '${name}'`, { hint: `choose another name, e.g. --write-preset ${name}-tuned` }));
}

// E_USAGE_BAD_ENTRY: --bad-entry that is not KEY=REASON

export function badEntryNotKeyReason(written: string): OrchError {
  return new OrchError(diagnostic('E_USAGE_BAD_ENTRY', `--bad-entry ${written} is not KEY=REASON`, { hint: 'KEY is the 64-hex-digit key of a cache entry (orch build --json reports it)' }));
}
