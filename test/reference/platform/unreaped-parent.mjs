// A parent that does not reap its child: `node unreaped-parent.mjs <command> [args...]` starts the
// command (its stdout and stderr are this process's), prints `child <pid>`, then blocks its event
// loop until a line comes on stdin. A child that dies meanwhile stays a zombie (state Z) until
// then, as under a supervisor that is slow to wait for it. Then the child is reaped and this exits.
import { spawn } from 'node:child_process';
import { readSync } from 'node:fs';

const [command, ...args] = process.argv.slice(2);
const child = spawn(command, args, { stdio: ['ignore', 'inherit', 'inherit'] });
process.stdout.write(`child ${child.pid}\n`);
const byte = Buffer.alloc(1);
for (;;) {
  try {
    readSync(0, byte);
    break;
  } catch (err) {
    if (err.code !== 'EAGAIN') break;
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 10);
  }
}
