// What machine the bench ran on, and how busy its CPUs were (whole machine, given processes) over a window.
import { execFileSync } from 'node:child_process';
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';

const CLK_TCK = 100; // Linux USER_HZ, the unit of /proc/*/stat times

function run(cmd, args) {
  try {
    return execFileSync(cmd, args, { encoding: 'utf8', timeout: 5000 }).trim();
  } catch {
    return '(unavailable)';
  }
}

export function machineInfo() {
  const cpuinfo = readFileSync('/proc/cpuinfo', 'utf8');
  const model = /^model name\s*:\s*(.*)$/m.exec(cpuinfo)?.[1] ?? '(unknown)';
  const free = run('free', ['-h']);
  const memLine = free.split('\n').find((l) => l.startsWith('Mem:'))?.split(/\s+/) ?? [];
  return {
    nproc: run('nproc', []),
    cpuModel: model,
    memory: memLine.length > 1 ? `${memLine[1]} total, ${memLine[6] ?? '?'} available` : free,
    freeH: free,
    node: process.version,
    kernel: os.release(),
  };
}

function machineTicks() {
  const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
  const idle = fields[3] + (fields[4] ?? 0);
  const total = fields.slice(0, 8).reduce((a, b) => a + b, 0);
  return { idle, total };
}

function processTicks(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(fields[11]) + Number(fields[12]); // utime + stime
  } catch {
    return 0;
  }
}

/** PostgreSQL backends serving `database` (their process title names it). */
export function backendPids(database) {
  const pids = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8');
      if (cmdline.startsWith('postgres:') && cmdline.includes(` ${database} `)) pids.push(Number(entry));
    } catch {
      // gone
    }
  }
  return pids;
}

/** The direct children of a process (e.g. a worker process a server started), from /proc/PID/task/TID/children. */
export function childPids(pid) {
  const out = [];
  try {
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      const list = readFileSync(`/proc/${pid}/task/${tid}/children`, 'utf8').trim();
      if (list) out.push(...list.split(/\s+/).map(Number));
    }
  } catch {
    // gone
  }
  return out;
}

/**
 * Starts a CPU accounting window. `groups` maps a name to a function returning pids (evaluated at start and end).
 * `end()` returns, per group, the share of ONE core used (100 = one core busy) and the machine's busy share of all cores.
 */
export function cpuWindow(groups) {
  const started = Date.now();
  const machine0 = machineTicks();
  const snapshot = () => {
    const out = {};
    for (const [name, pids] of Object.entries(groups)) {
      out[name] = new Map(pids().map((pid) => [pid, processTicks(pid)]));
    }
    return out;
  };
  const before = snapshot();
  return {
    end() {
      const seconds = (Date.now() - started) / 1000;
      const machine1 = machineTicks();
      const after = snapshot();
      const result = {};
      for (const name of Object.keys(groups)) {
        let ticks = 0;
        for (const [pid, t] of after[name]) ticks += t - (before[name].get(pid) ?? 0);
        result[name] = (100 * ticks) / CLK_TCK / seconds;
      }
      const total = machine1.total - machine0.total;
      result.machineBusy = total > 0 ? (100 * (total - (machine1.idle - machine0.idle))) / total : 0;
      return result;
    },
  };
}

/** Machine-wide busy share over `ms`. */
export async function busyShare(ms = 1000) {
  const a = machineTicks();
  await new Promise((r) => setTimeout(r, ms));
  const b = machineTicks();
  const total = b.total - a.total;
  return total > 0 ? (100 * (total - (b.idle - a.idle))) / total : 0;
}

/**
 * Sets the scheduling priority of every thread of a process (Linux applies setpriority to one thread at a time).
 * Children spawned afterwards inherit it. Returns false when it could not be set (not root, process gone).
 */
export function reniceProcess(pid, priority) {
  let tids;
  try {
    tids = readdirSync(`/proc/${pid}/task`).map(Number);
  } catch {
    return false;
  }
  let ok = true;
  for (const tid of tids) {
    try {
      os.setPriority(tid, priority);
    } catch {
      ok = false;
    }
  }
  return ok;
}

/**
 * With autogroup scheduling (kernel.sched_autogroup_enabled = 1) nice values only order threads inside one session's
 * group, and groups share the CPUs equally: the group's own nice value (/proc/PID/autogroup) is what counts against
 * other sessions. Sets it for the session `pid` belongs to (the bench's own session and its children).
 */
export function reniceAutogroup(pid, priority) {
  try {
    if (readFileSync('/proc/sys/kernel/sched_autogroup_enabled', 'utf8').trim() !== '1') return false;
    writeFileSync(`/proc/${pid}/autogroup`, String(priority));
    return true;
  } catch {
    return false;
  }
}
