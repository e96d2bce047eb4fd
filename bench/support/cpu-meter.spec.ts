import { CpuMeter, cpuPer, ticksOfStat } from './cpu-meter';

describe('bench CPU meter', () => {
  it('reads user, system and waited-for children ticks from a stat line', () => {
    // pid (comm) state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime cutime cstime ...
    const stat = '4242 (postgres: a (b) c) S 1 1 1 0 -1 4194560 10 0 0 0 120 30 7 3 20 0 1 0 55 1 1';
    expect(ticksOfStat(stat)).toBe(120 + 30 + 7 + 3);
  });

  it('counts the CPU this process burns', () => {
    const meter = CpuMeter.start();
    const from = process.cpuUsage();
    const deadline = Date.now() + 10_000;
    // why: spin until the process has used 60 ms of CPU, not for 60 ms of wall time: on a loaded
    // machine (a CI run beside other suites) a wall-clock span may get far less CPU.
    let used = 0;
    while (used < 60_000 && Date.now() < deadline) {
      const u = process.cpuUsage(from);
      used = u.user + u.system;
    }
    const span = meter.stop();
    expect(used).toBeGreaterThanOrEqual(60_000);
    expect(span.processMs).toBeGreaterThanOrEqual(60);
    expect(span.processMs).toBeLessThan(1_000);
    if (span.databaseMs !== null) expect(span.databaseMs).toBeGreaterThanOrEqual(0);
  });

  it('divides a span by the units of work, to 0.01 ms', () => {
    expect(cpuPer({ processMs: 100, databaseMs: 250 }, 300)).toEqual({ processMs: 0.33, databaseMs: 0.83 });
    expect(cpuPer({ processMs: 5, databaseMs: null }, 0)).toEqual({ processMs: 5, databaseMs: null });
  });
});
