package io.sqlqueue;

import java.util.List;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;

import org.springframework.jdbc.core.JdbcTemplate;

import io.sqlqueue.internal.store.ClaimRequest;
import io.sqlqueue.internal.store.Completion;
import io.sqlqueue.internal.store.JobStore;
import io.sqlqueue.internal.store.Lease;
import io.sqlqueue.internal.store.dialect.Dialects;

/**
 * The second JVM of {@link SqliteConformanceTests}: claims and runs jobs of handler
 * {@code record} on the same SQLite file, with its own pool and store, until every job
 * has succeeded. Exits 0 when done, 1 on any failure (e.g. a job that already ran).
 */
public final class SqliteSecondProcess {

	private SqliteSecondProcess() {
	}

	public static void main(String[] args) throws Exception {
		String url = args[0];
		int total = Integer.parseInt(args[1]);
		HikariConfig config = new HikariConfig();
		config.setJdbcUrl(url);
		config.setMaximumPoolSize(4);
		try (HikariDataSource pool = new HikariDataSource(config)) {
			JobStore store = new JobStore(pool, Dialects.detect(pool), null);
			JdbcTemplate jdbc = new JdbcTemplate(pool);
			long deadline = System.nanoTime() + 90_000_000_000L;
			while (jdbc.queryForObject("SELECT COUNT(*) FROM queue_job WHERE status = 'SUCCEEDED'",
					Integer.class) < total) {
				if (System.nanoTime() > deadline) {
					throw new IllegalStateException("Jobs left after 90 s");
				}
				List<JobRecord> claimed = store
					.claim(new ClaimRequest("process-2", "default", List.of("record"), 4, 30_000));
				for (JobRecord job : claimed) {
					// A job's work takes a moment, so that this process cannot drain the file alone
					// before the first one's Manager has started.
					Thread.sleep(3);
					jdbc.update("INSERT INTO ran (job_id, worker) VALUES (?, ?)", job.id(), "process-2");
					boolean[] held = store.complete(List.of(new Completion(new Lease(job.id(), job.leaseToken()), null)));
					if (!held[0]) {
						throw new IllegalStateException("Lost the lease of job " + job.id());
					}
				}
				if (claimed.isEmpty()) {
					Thread.sleep(20);
				}
			}
			System.exit(0);
		}
		catch (Throwable ex) {
			ex.printStackTrace();
			System.exit(1);
		}
	}

}
