package io.sqlqueue.benchmark;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;

import org.springframework.jdbc.core.JdbcTemplate;

import io.sqlqueue.internal.store.JobStore;
import io.sqlqueue.internal.store.QueueCount;

/**
 * What one refresh of the queue's counts costs on a large table (PostgreSQL): fills the
 * table with {@code finished} finished and {@code queued} queued jobs over four queues by
 * {@code generate_series}, vacuums it, then times the store's counts (what the stats, the
 * endpoint and the dashboard read) against the one grouped query they used before, each
 * {@code reps} times after one untimed read.
 */
final class StatsCounts {

	private final Target target;

	private final long finished;

	private final long queued;

	private final int reps;

	StatsCounts(Target target, long finished, long queued, int reps) {
		if (!target.isPostgres()) {
			throw new IllegalArgumentException("--workloads=stats runs on PostgreSQL only");
		}
		this.target = target;
		this.finished = finished;
		this.queued = queued;
		this.reps = reps;
	}

	void run() {
		try (Instance instance = Instance.producer(this.target, false)) {
			JdbcTemplate jdbc = this.target.jdbc();
			fill(jdbc);
			JobStore store = instance.bean(JobStore.class);
			System.out.printf(Locale.ROOT, "%nstats: %,d finished and %,d queued jobs, %s%n", this.finished,
					this.queued, this.target.tableSample());
			List<QueueCount> counts = store.countsByQueue();
			report("store counts (PostgresQueueCounter)", time(store::countsByQueue));
			report("one grouped query (before)", time(store::countAll));
			counts.forEach((count) -> System.out.printf(Locale.ROOT, "  %-8s %-9s %,12d%s%n", count.queue(),
					count.status(), count.jobs(), count.estimated() ? " (estimated)" : ""));
		}
	}

	private void fill(JdbcTemplate jdbc) {
		jdbc.execute("TRUNCATE " + this.target.table());
		jdbc.update("""
				INSERT INTO %s (queue, handler, payload, status, max_attempts, attempts, started_at, finished_at)
				SELECT (ARRAY['mail', 'reports', 'default', 'billing'])[1 + g %% 4], 'noop', '{}',
				       CASE WHEN g %% 50 = 0 THEN 'FAILED' WHEN g %% 97 = 0 THEN 'CANCELLED' ELSE 'SUCCEEDED' END,
				       3, 1, now() - interval '1 hour', now() - (g %% 3600) * interval '1 second'
				FROM generate_series(1, ?) AS g""".formatted(this.target.table()), this.finished);
		jdbc.update("""
				INSERT INTO %s (queue, handler, payload, status, max_attempts, priority, run_at)
				SELECT (ARRAY['mail', 'reports', 'default', 'billing'])[1 + g %% 4], 'noop', '{}', 'QUEUED', 3,
				       g %% 3, now() - (g %% 600) * interval '1 second'
				FROM generate_series(1, ?) AS g""".formatted(this.target.table()), this.queued);
		jdbc.execute("VACUUM ANALYZE " + this.target.table());
	}

	private List<Long> time(Runnable read) {
		read.run();
		List<Long> micros = new ArrayList<>();
		for (int i = 0; i < this.reps; i++) {
			long start = System.nanoTime();
			read.run();
			micros.add((System.nanoTime() - start) / 1_000);
		}
		Collections.sort(micros);
		return micros;
	}

	private static void report(String what, List<Long> micros) {
		System.out.printf(Locale.ROOT, "  %-38s median %8.1f ms, min %8.1f, max %8.1f (%d reads)%n", what,
				micros.get(micros.size() / 2) / 1000.0, micros.get(0) / 1000.0, micros.get(micros.size() - 1) / 1000.0,
				micros.size());
	}

}
