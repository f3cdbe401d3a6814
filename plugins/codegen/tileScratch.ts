import type { Launch, Tiling } from '../../core/ir/types.js';
import { tileLocalBoxes } from '../../core/ir/tileBoxes.js';
import { writes } from '../../core/ir/uses.js';
import { writtenOrUntouched } from '../../core/ir/writtenBeforeRead.js';
import type { Codegen, PointContext } from './Codegen.js';
import { STORAGE } from './cText.js';

/** The first nest of a launch that writes `name`, as its loop indices. */
function firstWriter(s: Launch, name: string): { vi: number; n: number } | undefined {
  for (const [vi, v] of s.loops.entries()) for (const [n, h] of v.body.entries()) if (writes(h.body).has(name)) return { vi, n };
  return undefined;
}

/** How a tile lays out its arrays: the loop order inside it, and the rolled arrays' rows (fusedNests.ts). */
export interface TileLayout {
  tileOrder: string | undefined;
  rolled: Map<string, number>;
  rollAxis: string;
}

/**
 * A tile's arrays in the thread's scratch arena: each tile-local array and each version of
 * an in-place array gets the box the tile's nests touch (offsets included), strides that
 * follow the loop order inside the tile, its pointer, and zeros where the program would see
 * them; a tile that finds no memory is counted in `tile_oom` and skipped.
 */
export function tileScratch(cg: Codegen, s: Launch, tile: Tiling, layout: TileLayout, ctx: PointContext): void {
  const w = cg.w;
  const { tileOrder, rolled, rollAxis } = layout;
  const boxes = tileLocalBoxes(s, tile);
  // a versioned array's version is laid out like any tile-local array
  const perTile = [...tile.local, ...(tile.versioned ?? []).map((x) => ({ name: x.name, zeroFill: false, version: true }))];
  const keepsBounds = (l: { zeroFill: boolean; version?: boolean }) => l.zeroFill || l.version === true;
  // each array's extent along K as laid out (padded with codegen.alignTileColumns)
  const extents = new Map<string, string>();
  for (const l of perTile) {
    const a = cg.array(l.name);
    const x = cg.ids.local(`tile_${l.name}`);
    w.line(`int64_t ${x}_i0 = INT64_MAX, ${x}_i1 = INT64_MIN, ${x}_j0 = INT64_MAX, ${x}_j1 = INT64_MIN, ${x}_k0 = INT64_MAX, ${x}_k1 = INT64_MIN;`);
    for (const b of boxes.get(l.name) ?? []) {
      const name = `${b.vi}_${b.n}`;
      w.open(`if (ilo_${name} < ihi_${name} && jlo_${name} < jhi_${name} && kclo_${b.vi} < kchi_${b.vi}) {`);
      w.line(`${x}_i0 = std::min<int64_t>(${x}_i0, ilo_${name} + ${b.i[0]}); ${x}_i1 = std::max<int64_t>(${x}_i1, ihi_${name} - 1 + ${b.i[1]});`);
      w.line(`${x}_j0 = std::min<int64_t>(${x}_j0, jlo_${name} + ${b.j[0]}); ${x}_j1 = std::max<int64_t>(${x}_j1, jhi_${name} - 1 + ${b.j[1]});`);
      w.line(`${x}_k0 = std::min<int64_t>(${x}_k0, kclo_${b.vi} + ${b.k[0]}); ${x}_k1 = std::max<int64_t>(${x}_k1, kchi_${b.vi} - 1 + ${b.k[1]});`);
      w.close();
    }
    const extent = { I: `${x}_ni`, J: `${x}_nj`, K: `${x}_nk` };
    const ext = (a: string) => `${x}_${a}0 <= ${x}_${a}1 ? ${x}_${a}1 - ${x}_${a}0 + 1 : 0`;
    const rows = rolled.get(l.name);
    const extent_ = (a: string) => (rows !== undefined && a === rollAxis ? String(rows) : ext(a));
    w.line(`const int64_t ${x}_ni = ${extent_('i')}, ${x}_nj = ${extent_('j')}, ${x}_nk = ${extent_('k')};`);
    // untouched in this tile: no access, but keep the base pointer's arithmetic in range
    w.line(`if (${x}_ni == 0 || ${x}_nj == 0 || ${x}_nk == 0) ${x}_i0 = ${x}_j0 = ${x}_k0 = 0;`);
    // rolled: row r of the tile lives in slot r & (rows - 1) (a version, or an array laid with
    // zeros row by row, keeps its box's bounds: its fill, commit or zeros walk them)
    if (rows !== undefined && !keepsBounds(l)) w.line(`${x}_${rollAxis}0 = 0;`);
    // strides follow the loop order in the tile, so the innermost loop walks contiguous memory
    const inner = [...(tileOrder ?? cg.order)].reverse();
    // (codegen.alignTileColumns: K columns a whole number of lines apart, so a vector of a
    // column's levels straddles no line boundary; the padding levels are never touched)
    if (cg.opts.alignTileColumns && inner[0] === 'K') {
      const lanes = `static_cast<int64_t>(64 / sizeof(${STORAGE[a.dtype]}))`;
      w.line(`const int64_t ${x}_nkp = (${x}_nk + ${lanes} - 1) / ${lanes} * ${lanes};`);
      extent.K = `${x}_nkp`;
    }
    w.line(`const size_t ${x}_at = tile_bytes;`);
    w.line(`tile_bytes += (static_cast<size_t>(${x}_ni * ${x}_nj * ${extent.K}) * sizeof(${STORAGE[a.dtype]}) + 63) / 64 * 64;`);
    extents.set(l.name, extent.K);
    const strides: Record<string, string> = {};
    let acc = '1';
    for (const axis of inner) {
      strides[axis] = acc;
      acc = acc === '1' ? extent[axis as 'I' | 'J' | 'K'] : `${acc} * ${extent[axis as 'I' | 'J' | 'K']}`;
    }
    w.line(`[[maybe_unused]] const int64_t ${cg.ids.stride(l.name, 0)} = ${strides.I}, ${cg.ids.stride(l.name, 1)} = ${strides.J}, ${cg.ids.stride(l.name, 2)} = ${strides.K};`);
  }
  w.open('if (!scratch.ensure(tile_bytes)) {');
  w.line('tile_oom.store(1, std::memory_order_relaxed);');
  w.line('continue;');
  w.close();
  for (const l of perTile) {
    const a = cg.array(l.name);
    const x = cg.ids.local(`tile_${l.name}`);
    const type = STORAGE[a.dtype];
    // (those rows count from 0: slot r & (rows - 1))
    const origin = (axis: string, pos: number) => (rolled.has(l.name) && keepsBounds(l) && axis === rollAxis ? '' : ` - ${x}_${axis}0 * ${cg.ids.stride(l.name, pos)}`);
    w.line(`${type}* __restrict__ const ${cg.ids.ptr(l.name)} = reinterpret_cast<${type}*>(scratch.base() + ${x}_at)${origin('i', 0)}${origin('j', 1)}${origin('k', 2)};`);
    // (rolled: its zeros are laid as each row enters its slot, zeroedRows.ts)
    if (l.zeroFill && !rolled.has(l.name)) {
      const fill = `std::memset(scratch.base() + ${x}_at, 0, static_cast<size_t>(${x}_ni * ${x}_nj * ${extents.get(l.name)}) * sizeof(${type}));`;
      // Only points no nest writes keep the zero: where the first nest writing the array
      // (before any read, writtenOrUntouched) covers the tile's whole box, nothing does.
      const first = writtenOrUntouched(l.name, s) ? firstWriter(s, l.name) : undefined;
      if (!first) w.line(fill);
      else {
        // the columns of the box outside that nest's (grown) clip: a few at the domain's edges
        const c = `${first.vi}_${first.n}`;
        const p = cg.ids.ptr(l.name);
        const at = `i * ${cg.ids.stride(l.name, 0)} + j * ${cg.ids.stride(l.name, 1)} + k * ${cg.ids.stride(l.name, 2)}`;
        w.open(`if (${x}_k0 < kclo_${first.vi} || ${x}_k1 >= kchi_${first.vi}) {`);
        w.line(fill);
        w.reopen(`} else if (${x}_i0 < ilo_${c} || ${x}_i1 >= ihi_${c} || ${x}_j0 < jlo_${c} || ${x}_j1 >= jhi_${c}) {`);
        w.open(`for (int64_t i = ${x}_i0; i <= ${x}_i1; ++i) {`);
        w.line(`const bool inside = i >= ilo_${c} && i < ihi_${c};`);
        w.open(`for (int64_t j = ${x}_j0; j <= ${x}_j1; ++j) {`);
        // a row inside the clip has its zeros at both ends only: skip what the nest writes
        w.open(`if (inside && j >= jlo_${c} && j < jhi_${c}) {`);
        w.line(`j = jhi_${c} - 1;`);
        w.line('continue;');
        w.close();
        w.line(`for (int64_t k = ${x}_k0; k <= ${x}_k1; ++k) ${p}[${at}] = 0;`);
        w.close();
        w.close();
        w.close();
      }
    }
    ctx.hoisted.set(l.name, a);
  }
}
