/**
 * Figures of a child process as the kernel keeps them (Linux /proc; elsewhere undefined): its
 * RSS and that of its descendants, sampled, and its own peak (VmHWM). Shared by the benchmarks.
 */
import { spawn, type SpawnOptions } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';

export function statusField(pid: number, field: string): number | undefined {
  try {
    const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) : undefined;
  } catch {
    return undefined;
  }
}

/** The pid and all its descendants, from /proc/<pid>/task/<tid>/children. */
export function tree(pid: number): number[] {
  const out = [pid];
  for (let i = 0; i < out.length; i++) {
    try {
      for (const tid of readdirSync(`/proc/${out[i]}/task`)) {
        const kids = readFileSync(`/proc/${out[i]}/task/${tid}/children`, 'utf8').trim();
        if (kids) out.push(...kids.split(/\s+/).map(Number));
      }
    } catch {
      // The process ended between two reads.
    }
  }
  return out;
}

export interface Measured {
  code: number;
  wallMs: number;
  stdout: string;
  stderr: string;
  /** Largest sum of the RSS of the process and its descendants seen (kB), sampled every 50 ms. */
  peakTreeRssKb?: number;
  /** The process's own peak resident set (kB), as the kernel recorded it. */
  peakHwmKb?: number;
}

/** Runs a command to its end, sampling its memory. */
export function measure(cmd: string, args: string[], opts: SpawnOptions): Promise<Measured> {
  const procOk = existsSync('/proc/self/status');
  return new Promise((resolve) => {
    const t0 = performance.now();
    const child = spawn(cmd, args, { ...opts, stdio: ['ignore', 'pipe', 'pipe'] });
    let peakTree = 0;
    let peakHwm = 0;
    const sample = () => {
      if (!procOk || child.pid === undefined) return;
      peakTree = Math.max(
        peakTree,
        tree(child.pid).reduce((sum, p) => sum + (statusField(p, 'VmRSS') ?? 0), 0),
      );
      peakHwm = Math.max(peakHwm, statusField(child.pid, 'VmHWM') ?? 0);
    };
    const timer = setInterval(sample, 50);
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (d) => (stdout += d));
    child.stderr!.on('data', (d) => (stderr += d));
    child.on('close', (code) => {
      clearInterval(timer);
      resolve({
        code: code ?? -1,
        wallMs: performance.now() - t0,
        stdout,
        stderr,
        ...(procOk ? { peakTreeRssKb: peakTree, peakHwmKb: peakHwm } : {}),
      });
    });
  });
}

export const mb = (kb?: number) => (kb === undefined ? 'n/a' : `${(kb / 1024).toFixed(0)} MB`);

export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}
