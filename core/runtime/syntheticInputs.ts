import type { EntryInterface } from './callArgs.js';
import { allocate, type NDArray } from './ndarray.js';

/**
 * Deterministic inputs for fields the user did not give (`orch run --shape NX,NY,NZ`),
 * for demos and benchmarks: smooth positive values, so divisions and logs stay finite.
 */
export function syntheticInputs(iface: EntryInterface, shape: number[], given: Record<string, NDArray>): Record<string, NDArray> {
  const out: Record<string, NDArray> = {};
  let seed = 12345;
  const rand = () => {
    // xorshift32: reproducible across runs and machines
    seed ^= seed << 13;
    seed ^= seed >>> 17;
    seed ^= seed << 5;
    return (seed >>> 0) / 4294967296;
  };
  for (const p of iface.params) {
    if (p.kind !== 'field' || given[p.name]) continue;
    const axes = p.axes ?? 'IJK';
    const dims = [...[...axes].map((a) => shape['IJK'.indexOf(a)] ?? 1), ...(p.dims ?? [])];
    const arr = allocate(p.dtype, dims);
    for (let n = 0; n < arr.data.length; n++) {
      const v = 1 + rand();
      if (arr.data instanceof BigInt64Array) arr.data[n] = BigInt(Math.floor(v * 4));
      else if (p.dtype === 'bool') arr.data[n] = v > 1.5 ? 1 : 0;
      else if (p.dtype !== 'float64' && p.dtype !== 'float32') arr.data[n] = Math.floor(v * 4);
      else arr.data[n] = v;
    }
    out[p.name] = arr;
  }
  return out;
}
