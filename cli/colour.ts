import { styleText } from 'node:util';
import type { Paint } from '../core/diagnostics.js';

/**
 * Colour for a terminal: on when the stream is a TTY, off when it is not or NO_COLOR is
 * set (no-color.org); FORCE_COLOR=1 turns it on anywhere, FORCE_COLOR=0 off.
 */
export function colourOn(stream: { isTTY?: boolean }, env: NodeJS.ProcessEnv = process.env): boolean {
  if (env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== '') return env.FORCE_COLOR !== '0';
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  return stream.isTTY === true;
}

const STYLES: Record<Parameters<Paint>[0], Parameters<typeof styleText>[0]> = {
  error: ['bold', 'red'],
  warning: ['bold', 'yellow'],
  location: 'cyan',
  caret: 'red',
  hint: 'green',
};

/** The painter formatDiagnostic uses for `stream`, or undefined for plain text. */
export function painterFor(stream: { isTTY?: boolean }, env: NodeJS.ProcessEnv = process.env): Paint | undefined {
  if (!colourOn(stream, env)) return undefined;
  // colourOn decided for this stream; styleText would otherwise check process.stdout
  return (role, text) => styleText(STYLES[role], text, { validateStream: false });
}
