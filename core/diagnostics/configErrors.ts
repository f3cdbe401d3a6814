import { OrchError } from '../diagnostics.js';
import type { SourceLoc } from '../ir/types.js';
import { diagnostic } from './codes.js';

// The errors of config, presets and IR text: one factory per distinct error (after Rollup's src/utils/logs.ts),
// grouped under the code it reports, in the order of CODES in codes.ts.

// E_CONFIG_KEY: a misspelt or unknown config key

export function unknownConfigKey(dotted: string, name: string, loc: SourceLoc | undefined, length: number, hint: string): OrchError {
  return new OrchError(diagnostic('E_CONFIG_KEY', `unknown config key '${dotted}' in ${name}`, { loc, length, hint }));
}

// E_CONFIG_VALUE: a config value of the wrong kind

export function configValueKind(where: string, must: string, got: string, name: string, loc: SourceLoc | undefined, length: number, hint: string | undefined): OrchError {
  return new OrchError(diagnostic('E_CONFIG_VALUE', `'${where}' must be ${must}, not ${got} (in ${name})`, { loc, length, hint }));
}

export function presetBackendUnknown(presetName: string, backend: string, inFile: string, guess: string | undefined, keys: string): OrchError {
  return new OrchError(diagnostic('E_CONFIG_VALUE', `preset '${presetName}' names backend '${backend}', which orch does not have${inFile}`, { hint: `${guess ? `did you mean '${guess}'? ` : ''}backends: ${keys}` }));
}

// E_CONFIG_LOAD: a config file that does not load

export function configSyntaxError(basename: string, at: string, loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_CONFIG_LOAD', `syntax error in ${basename}: ${at}`, { loc, hint: 'fix the syntax at the caret (or just before it: a missing comma or bracket shows at the next token)' }));
}

export function configUnloadable(file: string, message: string): OrchError {
  return new OrchError(diagnostic('E_CONFIG_LOAD', `cannot load ${file}: ${message}`, { hint: 'fix the error in the config file; it must `export default defineConfig({...})`' }));
}

export function doesNotExportConfig(file: string): OrchError {
  return new OrchError(diagnostic('E_CONFIG_LOAD', `${file} does not export a config object`, { hint: 'write `export default defineConfig({...})`' }));
}

// E_PRESET_UNKNOWN: --preset or preset names no preset

export function unknownPreset(name: string, guess: string | undefined, keys: string): OrchError {
  return new OrchError(diagnostic('E_PRESET_UNKNOWN', `unknown preset '${name}'`, { hint: `${guess ? `did you mean '${guess}'? ` : ''}presets: ${keys}` }));
}

// E_OPTION: a codegen option orch cannot use (a loop order that is not a permutation of IJK ...)

export function loopOrderNotPermutation(loopOrder: string): OrchError {
  return new OrchError(diagnostic('E_OPTION', `loop order '${loopOrder}' is not a permutation of IJK`, { hint: "use e.g. 'IJK' (K innermost, best for C-contiguous IJK arrays) or 'KJI'" }));
}

export function cudaBlockInvalid(name: string, block: string, rank: number, block2: string): OrchError {
  return new OrchError(diagnostic('E_OPTION', `codegen.${name} ${block} is not a valid CUDA block`, { hint: `give ${rank} positive integers (x, y${rank === 3 ? ', z ≤ 64' : ''}) whose product is at most 1024, e.g. ${block2}` }));
}

// E_CUDA_ARCH: a CUDA architecture orch cannot read, or none found

export function notCudaArch(arch: string, source: string): OrchError {
  return new OrchError(diagnostic('E_CUDA_ARCH', `'${arch}' from ${source} is not a CUDA architecture`, { hint: "write it as sm_90 (H100), sm_80 (A100), sm_86, ... or a compute capability such as 9.0; several are separated by commas" }));
}

export function cudaArchEmpty(source: string): OrchError {
  return new OrchError(diagnostic('E_CUDA_ARCH', `${source} is empty`, { hint: 'set it to an architecture such as sm_90' }));
}

export function cudaArchUnknown(): OrchError {
  return new OrchError(diagnostic('E_CUDA_ARCH', 'cannot tell which GPU to build for: $CUDA_ARCH is not set and nvidia-smi is not available', { hint: 'set CUDA_ARCH (e.g. CUDA_ARCH=sm_90), or use a preset that names the GPU: cuda-h100 or cuda-a100' }));
}

// E_IR_PARSE: IR text (a pass test, a dump) that does not parse

export function irUnexpectedCharacter(char: string, loc: SourceLoc): OrchError {
  return new OrchError(diagnostic('E_IR_PARSE', `unexpected character '${char}' in IR text`, { loc, hint: 'IR text is what `--print-ir-after` prints; check the character under the caret' }));
}

export function irParseError(message: string, loc: SourceLoc, length: number): OrchError {
  return new OrchError(diagnostic('E_IR_PARSE', message, { loc, length, hint: 'IR text is what `--print-ir-after` prints (core/ir/print.ts); fix the text under the caret' }));
}
