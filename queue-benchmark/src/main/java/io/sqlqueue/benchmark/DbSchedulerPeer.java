package io.sqlqueue.benchmark;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import com.github.kagkarlsson.scheduler.Scheduler;
import com.github.kagkarlsson.scheduler.task.TaskInstance;
import com.github.kagkarlsson.scheduler.task.helper.OneTimeTask;
import com.github.kagkarlsson.scheduler.task.helper.Tasks;
import com.zaxxer.hikari.HikariDataSource;

import org.springframework.core.io.ClassPathResource;

/**
 * db-scheduler, the closest Java peer, set up for throughput as its README recommends:
 * lock-and-fetch polling ({@code pollUsingLockAndFetch(0.5, 2.5)}: with 8 threads, fetch
 * again below 4 queued executions, up to 20 at a time). Jobs are one-time task instances,
 * scheduled with {@code scheduleBatch}; a finished one-time execution is deleted. PostgreSQL
 * only (its table for PostgreSQL ships with the benchmark).
 */
final class DbSchedulerPeer implements Peer {

	private static final int ENQUEUE_BATCH = 500;

	private final Target target;

	private final HikariDataSource dataSource;

	private final Scheduler scheduler;

	private final OneTimeTask<Integer> task;

	DbSchedulerPeer(Target target, int threads) {
		if (!target.isPostgres()) {
			throw new IllegalArgumentException("The db-scheduler peer runs on PostgreSQL only");
		}
		this.target = target;
		createTable();
		this.dataSource = FloorQueue.pool(target, applicationName(), threads + 4);
		this.task = Tasks.oneTime("bench-noop", Integer.class)
			.execute((instance, context) -> Executions.current.ran(instance.getData()));
		this.scheduler = Scheduler.create(this.dataSource, this.task)
			.threads(threads)
			.pollUsingLockAndFetch(0.5, 2.5)
			.pollingInterval(Duration.ofMillis(100))
			.tableName(table())
			.build();
	}

	@Override
	public String name() {
		return "db-scheduler 16.7.1, lock-and-fetch";
	}

	@Override
	public int comparedBatch() {
		return 10;
	}

	@Override
	public String applicationName() {
		return "bench-db-scheduler";
	}

	private String table() {
		return (this.target.schema() != null) ? "\"" + this.target.schema() + "\".scheduled_tasks" : "scheduled_tasks";
	}

	private void createTable() {
		try {
			String ddl = new ClassPathResource("peers/db-scheduler-postgresql.sql").getContentAsString(
					StandardCharsets.UTF_8);
			this.target.jdbc().execute("DROP TABLE IF EXISTS " + table());
			String schema = (this.target.schema() != null) ? "SET search_path TO \"" + this.target.schema() + "\";\n"
					: "";
			this.target.jdbc().execute(schema + ddl);
		}
		catch (java.io.IOException ex) {
			throw new IllegalStateException(ex);
		}
	}

	@Override
	public void enqueue(int jobs) {
		Instant now = Instant.now();
		List<TaskInstance<?>> batch = new ArrayList<>(ENQUEUE_BATCH);
		for (int i = 0; i < jobs; i++) {
			batch.add(this.task.instance("job-" + i, i));
			if (batch.size() == ENQUEUE_BATCH || i == jobs - 1) {
				this.scheduler.scheduleBatch(batch, now);
				batch.clear();
			}
		}
	}

	@Override
	public void startWorkers() {
		this.scheduler.start();
	}

	@Override
	public boolean allDone(int jobs) {
		Long left = this.target.jdbc().queryForObject("SELECT COUNT(*) FROM " + table(), Long.class);
		return left != null && left == 0;
	}

	@Override
	public void close() {
		this.scheduler.stop();
		this.dataSource.close();
		this.target.jdbc().execute("DROP TABLE IF EXISTS " + table());
	}

}
