import { execFileSync } from 'node:child_process';
import { appendFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { writeNpy } from '../core/runtime/npy.js';
import { stencilModule, TempProject } from './TempProject.js';
import { withinSeconds } from './withinSeconds.js';

/**
 * `--in` files (issue 12, items 6 and 15): only regular files are read, and the size the
 * .npy header implies is checked against the file before the data is read.
 */

const npy = suite('npy input');

function project(): TempProject {
  const p = new TempProject('npyin');
  p.write('m.py', stencilModule('s', 'a * w'));
  writeNpy(p.path('a.npy'), { dtype: 'float64', shape: [3, 3, 3], data: new Float64Array(27).fill(1) });
  return p;
}

/** A version 1.0 .npy file: numpy's magic, the header padded to 128 bytes, then `data` bytes. */
function npyFile(header: string, data: number): Buffer {
  const text = header.padEnd(128 - 10 - 1, ' ') + '\n';
  const len = Buffer.alloc(2);
  len.writeUInt16LE(text.length);
  return Buffer.concat([Buffer.from('\x93NUMPY\x01\x00', 'latin1'), len, Buffer.from(text, 'latin1'), Buffer.alloc(data)]);
}

async function refused(p: TempProject, file: string, text: string) {
  // a timeout turns "reads /dev/zero until memory runs out" into a failure, not a hung suite
  const r = await withinSeconds(20, `orch run --in a=${file} did not finish in 20 s`, p.orch(['run', 'm.py:s', '--scalars', '{"w": 2.0}', '--shape', '3,3,3', '--in', `a=${file}`], { NO_COLOR: '1' }));
  assert.is(r.stderr.trimEnd(), text);
  assert.is(r.code, 1);
}

npy('a device, a FIFO and a folder are refused without reading them', async () => {
  const p = project();
  await refused(p, '/dev/zero', 'error E_NPY_READ: /dev/zero is a character device, not a .npy file\nhint: pass a regular file written by numpy.save');
  execFileSync('mkfifo', [p.path('fifo.npy')]);
  await refused(p, 'fifo.npy', 'error E_NPY_READ: fifo.npy is a FIFO (named pipe), not a .npy file\nhint: pass a regular file written by numpy.save');
  mkdirSync(p.path('dir.npy'));
  await refused(p, 'dir.npy', 'error E_NPY_READ: dir.npy is a directory, not a .npy file\nhint: pass a regular file written by numpy.save');
  await refused(p, 'none.npy', 'error E_NPY_READ: cannot read none.npy: no such file\nhint: check the path given to --in');
});

npy('a file shorter than its header says is truncated; one longer is not', async () => {
  const p = project();
  const whole = readFileSync(p.path('a.npy'));
  writeFileSync(p.path('short.npy'), whole.subarray(0, whole.length - 10));
  await refused(p, 'short.npy', 'error E_NPY_FORMAT: short.npy is truncated: its header says shape (3, 3, 3) of <f8, which takes 288 bytes, but the file has 278\nhint: the file is incomplete; write it again with numpy.save');
  writeFileSync(p.path('two.npy'), Buffer.concat([whole, whole]));
  await refused(p, 'two.npy', 'error E_NPY_FORMAT: two.npy has 288 bytes after the data its header describes (shape (3, 3, 3) of <f8, 288 bytes in all); it is not one .npy array\nhint: several arrays appended to one file, or a wrong header: save one array per file with numpy.save');
  writeFileSync(p.path('extra.npy'), whole);
  appendFileSync(p.path('extra.npy'), Buffer.alloc(8));
  await refused(p, 'extra.npy', 'error E_NPY_FORMAT: extra.npy has 8 bytes after the data its header describes (shape (3, 3, 3) of <f8, 288 bytes in all); it is not one .npy array\nhint: several arrays appended to one file, or a wrong header: save one array per file with numpy.save');
  // a header that claims a huge array is refused from its size, before any allocation
  writeFileSync(p.path('huge.npy'), npyFile("{'descr': '<f8', 'fortran_order': False, 'shape': (100000, 100000, 100000), }", 64));
  await refused(p, 'huge.npy', 'error E_NPY_FORMAT: huge.npy is truncated: its header says shape (100000, 100000, 100000) of <f8, which takes 8000000000000128 bytes, but the file has 192\nhint: the file is incomplete; write it again with numpy.save');
  const ok = await p.orch(['run', 'm.py:s', '--scalars', '{"w": 2.0}', '--shape', '3,3,3', '--in', 'a=a.npy', '--json']);
  assert.is(ok.code, 0, ok.stderr);
});

npy.run();
