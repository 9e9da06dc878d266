package io.sqlqueue.fault;

import java.time.Duration;

import javax.sql.DataSource;

import io.sqlqueue.internal.store.ClaimMethod;
import io.sqlqueue.internal.store.Completion;
import io.sqlqueue.internal.store.Dialect;
import io.sqlqueue.internal.store.JobStore;

/**
 * A store whose transactional completion takes a while to commit, as over a slow network:
 * it pauses after marking the job {@code SUCCEEDED} and before the transaction commits, so
 * that a worker frozen then surely holds the job's row lock. The fence itself is the real
 * one.
 */
final class PausingJobStore extends JobStore {

	private final Duration pause;

	PausingJobStore(DataSource dataSource, Dialect dialect, String schema, Duration pause) {
		super(dataSource, dialect, schema, ClaimMethod.UPDATE_RETURNING);
		this.pause = pause;
	}

	@Override
	public boolean completeWhileLeased(Completion completion) {
		boolean held = super.completeWhileLeased(completion);
		try {
			Thread.sleep(this.pause.toMillis());
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		return held;
	}

}
