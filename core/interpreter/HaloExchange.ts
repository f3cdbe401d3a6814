import { checkRankCount, DIRECTIONS, haloBoxes, neighbours, opposite, type Boundary, type Box } from '../layout/HaloTopology.js';
import type { RankLayout } from '../layout/RankLayout.js';
import type { HaloField, HaloRequest } from './Interpreter.js';
import { computeDomainBelowHalo, haloExchangesDiverged, haloShapesDiffer } from '../diagnostics/haloErrors.js';

/**
 * The halo exchange of the ranks of one process: what the compiled library does with MPI
 * (native/orch_halo.h), simulated for the interpreter. A start packs every rank's strips
 * into messages; the wait delivers them, as MPI's Isend/Irecv/Waitall do, so a field
 * written between start and wait sends its value at the start.
 */
export class HaloExchange {
  /** Messages in flight, per exchange: [to rank][from direction] -> values. */
  private readonly inFlight = new Map<number, Map<string, number[]>>();

  constructor(
    readonly layout: RankLayout,
    readonly boundary: Boundary,
  ) {}

  /** Performs one halo statement, reached by every rank (`requests[rank]`). */
  step(requests: HaloRequest[]): void {
    checkRankCount(this.layout, requests.length);
    const stmt = requests[0].stmt;
    for (const r of requests) {
      if (r.stmt !== stmt && (r.stmt.exchange !== stmt.exchange || r.stmt.phase !== stmt.phase)) {
        throw haloExchangesDiverged(stmt.loc.line, r.stmt.loc.line, r.stmt.loc);
      }
    }
    if (stmt.phase !== 'wait') this.start(requests);
    if (stmt.phase !== 'start') this.finish(requests);
  }

  private start(requests: HaloRequest[]): void {
    const { exchange, width, halo } = requests[0].stmt;
    const mail = new Map<string, number[]>();
    const shape0 = requests[0].fields.map((f) => f.shape.join('x')).join(', ');
    requests.forEach((req, rank) => {
      const shapes = req.fields.map((f) => f.shape.join('x')).join(', ');
      if (shapes !== shape0) throw haloShapesDiffer(rank, shapes, shape0, req.stmt.loc);
      neighbours(this.layout, this.boundary, rank).forEach((nb, dir) => {
        if (!nb) return;
        const values: number[] = [];
        for (const f of req.fields) pack(f, boxesOf(f, halo, width, dir).send, values);
        // the neighbour receives it from the opposite side
        mail.set(`${nb.rank}:${opposite(dir)}`, values);
      });
    });
    this.inFlight.set(exchange, mail);
  }

  private finish(requests: HaloRequest[]): void {
    const { exchange, width, halo } = requests[0].stmt;
    const mail = this.inFlight.get(exchange);
    if (!mail) throw new Error(`halo exchange #${exchange} waited for before it started`);
    this.inFlight.delete(exchange);
    requests.forEach((req, rank) => {
      for (let dir = 0; dir < DIRECTIONS.length; dir++) {
        const values = mail.get(`${rank}:${dir}`);
        if (!values) continue;
        let at = 0;
        for (const f of req.fields) at = unpack(f, boxesOf(f, halo, width, dir).recv, values, at);
      }
    });
  }
}

function boxesOf(f: HaloField, halo: number, width: number, dir: number): { send: Box; recv: Box } {
  const nx = f.shape[0] - 2 * halo;
  const ny = f.shape[1] - 2 * halo;
  if (nx < width || ny < width) throw computeDomainBelowHalo(f.name, f.shape.join('x'), nx, ny, width, halo);
  return haloBoxes(nx, ny, halo, width, dir);
}

function forEachPoint(f: HaloField, box: Box, fn: (index: number) => void): void {
  const nk = f.shape.length > 2 ? f.shape[2] : 1;
  const sk = f.shape.length > 2 ? f.strides[2] : 0;
  for (let i = box.i[0]; i < box.i[1]; i++) {
    for (let j = box.j[0]; j < box.j[1]; j++) {
      for (let k = 0; k < nk; k++) fn(i * f.strides[0] + j * f.strides[1] + k * sk);
    }
  }
}

function pack(f: HaloField, box: Box, out: number[]): void {
  forEachPoint(f, box, (n) => out.push(f.data[n]));
}

function unpack(f: HaloField, box: Box, values: number[], at: number): number {
  forEachPoint(f, box, (n) => {
    f.data[n] = values[at++];
  });
  return at;
}
