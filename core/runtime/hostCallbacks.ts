import { Interpreter } from '../interpreter/Interpreter.js';
import type { EntryInterface } from './callArgs.js';
import type { HostCallback } from './NativeLibrary.js';

/**
 * orch's own evaluation of each callback body, for hosts with no Python to call (the CLI,
 * tests): callbacks whose bodies are plain scalar arithmetic run as the interpreter would.
 */
export function hostCallbacks(iface: EntryInterface): Record<string, HostCallback> {
  return Object.fromEntries((iface.callbacks ?? []).map((cb) => [cb.name, Interpreter.hostFunction(cb)]));
}
