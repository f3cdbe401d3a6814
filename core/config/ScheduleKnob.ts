import type { CodegenOptions } from './types.js';

/** What a knob may look at to choose the values worth trying. */
export interface KnobContext {
  /** The options the search starts from (the preset merged with the config). */
  base: CodegenOptions;
  /** The compute domain being tuned for, NX, NY, NZ. */
  domain: [number, number, number];
}

/**
 * One schedule option a backend's code generation offers: a codegen option and the values
 * `orch tune` tries for it. Every value must give the same numbers (the tuner checks each
 * candidate bitwise against the interpreter anyway); only the speed may differ. A backend
 * lists its knobs in one place (Backend.scheduleKnobs), so a new schedule joins the search
 * by adding a line there.
 */
export interface ScheduleKnob {
  /** The codegen option it sets. */
  readonly option: keyof CodegenOptions;
  /** What it changes, for `orch tune` output. */
  readonly describe: string;
  /** The values worth trying (the base value need not be among them). */
  values(ctx: KnobContext): readonly unknown[];
}
