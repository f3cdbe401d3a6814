import { hostCallbacks } from '../core/runtime/hostCallbacks.js';
import type { Program } from '../core/ir/types.js';
import { Interpreter } from '../core/interpreter/Interpreter.js';
import { buildEntryArgs, type CallSpec, type EntryArgs, type EntryInterface } from '../core/runtime/callArgs.js';
import { compareArrays } from '../core/runtime/compareArrays.js';
import { stageOnDevice, type DeviceMemory } from '../core/runtime/deviceArgs.js';
import { cloneArray, type NDArray } from '../core/runtime/ndarray.js';
import type { NativeLibrary } from '../core/runtime/NativeLibrary.js';
import { syntheticInputs } from '../core/runtime/syntheticInputs.js';

/**
 * One call of an entry, run by the interpreter and by a GPU program library (on a device,
 * or emulated on the CPU), for the GPU tests and the GPU benchmark.
 */

export interface EntryCall {
  iface: EntryInterface;
  program: Program;
  inputs: Record<string, NDArray>;
  call: Omit<CallSpec, 'fields'>;
}

/** Copies of `inputs` with the call's arguments (fields are fresh copies every time). */
export function callArgs(c: EntryCall): { args: EntryArgs; fields: Record<string, NDArray> } {
  const fields: Record<string, NDArray> = {};
  for (const [k, v] of Object.entries(c.inputs)) fields[k] = cloneArray(v);
  return { args: buildEntryArgs(c.iface, { ...c.call, fields }), fields };
}

/** Every field after the interpreter ran the call. */
export function interpret(c: EntryCall): Record<string, NDArray> {
  const { args, fields } = callArgs(c);
  new Interpreter(c.program).run(args);
  return fields;
}

/** Every field after `lib` ran the call on device memory from `memory`, laid out for `loopOrder`. */
export function runOnDevice(lib: NativeLibrary, memory: DeviceMemory, c: EntryCall, loopOrder: string): Record<string, NDArray> {
  const { args, fields } = callArgs(c);
  const staged = stageOnDevice(memory, lib.signature.params, args, loopOrder);
  try {
    if (c.iface.callbacks?.length) lib.setCallbacks(hostCallbacks(c.iface));
    lib.run(staged.args);
    staged.download();
  } finally {
    staged.free();
  }
  return fields;
}

/** null when `got` matches `want` (as the CPU build must: 1e-12 relative or absolute), else what differs. */
export function interpreterMismatch(want: Record<string, NDArray>, got: Record<string, NDArray>): string | null {
  const cmp = compareArrays(want, got);
  if (cmp.maxRel <= 1e-12 || cmp.maxAbs <= 1e-12) return null;
  return `max rel diff ${cmp.maxRel.toExponential(2)}, max abs diff ${cmp.maxAbs.toExponential(2)} in '${cmp.worst}'`;
}

/**
 * A call of a fixture entry on synthetic fields of `shape` (programs), or over the fields
 * minus a halo of 2 in I and J (stencils, so offsets stay inside), with every scalar set
 * to a small value of its type.
 */
export function fixtureCall(iface: EntryInterface, program: Program, shape: [number, number, number]): EntryCall {
  const inputs = syntheticInputs(iface, shape, {});
  const scalars: Record<string, number | boolean> = {};
  const names = iface.stencil ? iface.stencil.scalars : iface.params.filter((p) => p.kind === 'scalar').map((p) => p.name);
  for (const name of names) {
    const p = iface.params.find((x) => x.name === name)!;
    scalars[name] = p.dtype === 'bool' ? true : p.dtype.startsWith('int') ? 2 : 0.25;
  }
  const call: Omit<CallSpec, 'fields'> = iface.stencil
    ? { scalars, origin: [2, 2, 0], domain: [shape[0] - 4, shape[1] - 4, shape[2]] }
    : { scalars };
  return { iface, program, inputs, call };
}
