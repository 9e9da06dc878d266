package io.sqlqueue.benchmark;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * CPU time spent by this JVM and by the database for one peer. On PostgreSQL, the backends
 * of the peer's connections (found by {@code application_name}), from {@code /proc}: other
 * load on the server does not count. On MariaDB (one process for every connection), the
 * whole server process. Needs the database on this host.
 */
final class CpuMeter {

	private static final long TICKS_PER_SECOND = 100;

	private final Target target;

	private final String applicationName;

	private final Map<Long, Long> databaseTicksAtStart = new HashMap<>();

	private long jvmNanosAtStart;

	private long compilationMillisAtStart;

	CpuMeter(Target target, String applicationName) {
		this.target = target;
		this.applicationName = applicationName;
	}

	void start() {
		this.databaseTicksAtStart.putAll(databaseTicks());
		this.jvmNanosAtStart = jvmNanos();
		this.compilationMillisAtStart = compilationMillis();
	}

	/**
	 * Milliseconds since {@link #start()}: the database's CPU, this JVM's CPU, and the time
	 * this JVM's JIT compilers spent compiling (part of its CPU on a machine with spare cores;
	 * a drain that is still compiling measures the compiler as much as the code).
	 */
	long[] stop() {
		Map<Long, Long> now = databaseTicks();
		long ticks = 0;
		for (Map.Entry<Long, Long> process : now.entrySet()) {
			ticks += process.getValue() - this.databaseTicksAtStart.getOrDefault(process.getKey(), 0L);
		}
		return new long[] { ticks * 1000 / TICKS_PER_SECOND, (jvmNanos() - this.jvmNanosAtStart) / 1_000_000,
				compilationMillis() - this.compilationMillisAtStart };
	}

	private Map<Long, Long> databaseTicks() {
		Map<Long, Long> ticks = new HashMap<>();
		for (long pid : databasePids()) {
			long used = processTicks(pid);
			if (used >= 0) {
				ticks.put(pid, used);
			}
		}
		return ticks;
	}

	private List<Long> databasePids() {
		if (this.target.isPostgres()) {
			return this.target.jdbc()
				.queryForList("SELECT pid FROM pg_stat_activity WHERE application_name = ?", Long.class,
						this.applicationName);
		}
		return ProcessHandle.allProcesses()
			.filter((process) -> process.info().command().map((command) -> command.endsWith("mariadbd")).orElse(false))
			.map(ProcessHandle::pid)
			.toList();
	}

	/** utime + stime of the process, in clock ticks; -1 when it is gone. */
	private static long processTicks(long pid) {
		try {
			String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
			String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
			return Long.parseLong(fields[11]) + Long.parseLong(fields[12]);
		}
		catch (IOException | RuntimeException ex) {
			return -1;
		}
	}

	private static long compilationMillis() {
		return ManagementFactory.getCompilationMXBean().getTotalCompilationTime();
	}

	private static long jvmNanos() {
		return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
			.getProcessCpuTime();
	}

}
