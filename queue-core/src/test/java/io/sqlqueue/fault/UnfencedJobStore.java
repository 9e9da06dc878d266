package io.sqlqueue.fault;

import java.util.HashSet;
import java.util.List;
import java.util.Set;

import javax.sql.DataSource;

import org.springframework.jdbc.core.JdbcTemplate;

import io.sqlqueue.internal.store.ClaimMethod;
import io.sqlqueue.internal.store.CompletedJobs;
import io.sqlqueue.internal.store.Completion;
import io.sqlqueue.internal.store.Dialect;
import io.sqlqueue.internal.store.JobStore;
import io.sqlqueue.internal.store.Lease;

/**
 * A store with the fence taken out on purpose: it marks a job {@code SUCCEEDED} by its id
 * alone, whoever holds it and whatever state it is in. A worker using it shows that the
 * fault suite's checker notices a broken fence (a final state written twice, a
 * transactional effect committed twice); it is never right to use it otherwise.
 */
final class UnfencedJobStore extends JobStore {

	private final JdbcTemplate jdbc;

	private final String completeById;

	UnfencedJobStore(DataSource dataSource, Dialect dialect, String schema) {
		super(dataSource, dialect, schema, ClaimMethod.UPDATE_RETURNING);
		this.jdbc = new JdbcTemplate(dataSource);
		this.completeById = """
				UPDATE %s.queue_job SET status = 'SUCCEEDED', result = CAST(? AS jsonb), finished_at = now(),
				    updated_at = now(), lease_expires_at = NULL, version = version + 1
				WHERE id = ?""".formatted(schema);
	}

	@Override
	public boolean[] complete(List<Completion> completions) {
		boolean[] held = new boolean[completions.size()];
		for (int i = 0; i < held.length; i++) {
			held[i] = completeWhileLeased(completions.get(i));
		}
		return held;
	}

	/** The completion flush's: the same unfenced writes, passing over nothing. */
	@Override
	public CompletedJobs completeUnlessHeld(List<Completion> completions) {
		boolean[] held = complete(completions);
		Set<Lease> recorded = new HashSet<>();
		for (int i = 0; i < held.length; i++) {
			if (held[i]) {
				recorded.add(completions.get(i).lease());
			}
		}
		return new CompletedJobs(recorded, Set.of());
	}

	/** In the handler's transaction when called from one: the JdbcTemplate joins it. */
	@Override
	public boolean completeWhileLeased(Completion completion) {
		return this.jdbc.update(this.completeById, completion.result(), completion.lease().jobId()) == 1;
	}

}
