package io.sqlqueue.internal.store;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.LongFunction;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.dao.DuplicateKeyException;
import org.springframework.jdbc.core.JdbcTemplate;

import io.sqlqueue.JobRecord;

/**
 * The claim of a queue, whichever kind it is: under its limits by flow control's
 * {@link LimitedClaim}, else by {@link JobClaims}; made again when it lost a race for a
 * group's turn, and given up for a second when the queue's flow row is held too long.
 * <p>
 * At most one job of a group runs at a time, and the database holds that line: a unique
 * index on the group key of {@code RUNNING} jobs. The claim's own condition (no job of the
 * group running, none older waiting) cannot see a claim that has not committed yet, so
 * two claims may pick two jobs of one group; the index then makes the later one wait for
 * the earlier and fail. That claim is simply made again: its new snapshot sees the group's
 * running job and leaves the group alone.
 */
final class QueueClaims {

	private static final Logger logger = LoggerFactory.getLogger(QueueClaims.class);

	/** Claims made in a row when each loses a race for a group's turn. */
	private static final int GROUP_RACE_TRIES = 5;

	/**
	 * When a limited claim that found its queue's flow row held by another transaction for
	 * too long ({@link FlowStore#FLOW_LOCK_WAIT}) is made again: so that a row an application
	 * holds costs the instance's poll loop at most that wait every second.
	 */
	static final Duration FLOW_BUSY_RETRY = Duration.ofSeconds(1);

	private final JdbcTemplate jdbc;

	private final StoreTransactions transactions;

	private final JobSql sql;

	private final JobClaims claims;

	private final LimitedClaim flowClaim;

	/** The job by id, as a claim by id returns it. */
	private final LongFunction<Optional<JobRecord>> find;

	QueueClaims(StoreContext context, JobSql sql, JobClaims claims, LimitedClaim flowClaim,
			LongFunction<Optional<JobRecord>> find) {
		this.jdbc = context.jdbc();
		this.transactions = context.transactions();
		this.sql = sql;
		this.claims = claims;
		this.flowClaim = flowClaim;
		this.find = find;
	}

	/**
	 * Claims due jobs for the request's owner, in the order they should run, and says what
	 * held due jobs back when the queue has limits (docs/flow-control.md). A queue with limits
	 * is claimed under them ({@link LimitedClaim}); a claim without limits leaves a queue
	 * alone while it has them, so an instance that has not heard of new limits yet finds
	 * nothing, looks, and claims under them.
	 */
	ClaimResult claim(ClaimRequest request) {
		for (int tries = 1;; tries++) {
			long token = ThreadLocalRandom.current().nextLong();
			try {
				ClaimResult limited = this.flowClaim.isLimited(request.queue()) ? claimLimited(request, token) : null;
				if (limited != null) {
					return limited;
				}
				List<JobRecord> jobs = this.claims.claim(request, token);
				if (jobs.isEmpty() && this.flowClaim.checkLimited(request.queue())) {
					limited = claimLimited(request, token);
				}
				return (limited != null) ? limited : ClaimResult.of(jobs);
			}
			catch (DuplicateKeyException ex) {
				if (tries == GROUP_RACE_TRIES) {
					logger.debug("Claim lost {} races for a group's turn in a row; claiming again later", tries, ex);
					return ClaimResult.NONE;
				}
			}
		}
	}

	private @Nullable ClaimResult claimLimited(ClaimRequest request, long token) {
		try {
			return this.transactions.inLimitedClaim(() -> this.flowClaim.claim(request, token));
		}
		catch (FlowBusyException ex) {
			logger.debug("Claim of queue '{}' takes nothing this time; trying again in {}", request.queue(),
					FLOW_BUSY_RETRY, ex);
			return new ClaimResult(List.of(), true, FLOW_BUSY_RETRY, false);
		}
		catch (FlowStore.NotReadCommittedException ex) {
			logger.info("The connections' transactions are not READ COMMITTED: limited claims ask for it from now on");
			this.transactions.limitedClaimsAskForReadCommitted();
			return this.transactions.inCallerOrNewReadCommitted(() -> this.flowClaim.claim(request, token));
		}
	}

	/**
	 * Claims the {@code QUEUED} job of this id for {@code owner}, due or not, as a claim
	 * would (a new token and lease, one more attempt); empty when it is not queued. For the
	 * test kit's "run this job now": not a path of the Manager.
	 */
	Optional<JobRecord> claimById(long id, String owner, long leaseMillis) {
		long token = ThreadLocalRandom.current().nextLong();
		return this.transactions.inCallerOrNewReadCommitted(() -> {
			if (this.jdbc.update(this.sql.claimById, owner, token, leaseMillis, id) != 1) {
				return Optional.<JobRecord>empty();
			}
			return this.find.apply(id);
		});
	}

}
