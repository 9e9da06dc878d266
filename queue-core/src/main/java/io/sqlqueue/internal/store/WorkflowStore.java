package io.sqlqueue.internal.store;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Function;

import org.jspecify.annotations.Nullable;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.support.GeneratedKeyHolder;
import org.springframework.jdbc.support.KeyHolder;

import io.sqlqueue.BatchProgress;
import io.sqlqueue.DependencyFailure;
import io.sqlqueue.InvalidJobException;
import io.sqlqueue.JobLinks;
import io.sqlqueue.JobStatus;
import io.sqlqueue.WorkflowGraph;

/**
 * The verbs of workflows as SQL: writing jobs with their links, settling what a job's end
 * settles (its dependents, its batch), and reading where a job stands. Every write runs in
 * the transaction of the store's part that calls it, so a job's end and what it settles
 * commit together.
 * <p>
 * {@code settles} on a job says what its end still has to settle: {@link #DEPENDENTS}, its
 * {@link #BATCH}, or both; plain jobs have none, and {@link JobEnds} and {@link JobCompletions} write their ends
 * with one statement that leaves jobs with something to settle alone.
 */
public class WorkflowStore {

	/** Most jobs enqueued before that one call's jobs may run after, all together. */
	public static final int MAX_EARLIER_DEPENDENCIES = 1000;

	/** A bit of {@code settles}: the job has dependents that wait for its end. */
	static final int DEPENDENTS = 1;

	/** A bit of {@code settles}: the job's end is still to be counted in its batch. */
	static final int BATCH = 2;

	private final JdbcTemplate jdbc;

	private final Dialect dialect;

	private final WorkflowSql sql;

	WorkflowStore(JdbcTemplate jdbc, Dialect dialect, @Nullable String schema) {
		this.jdbc = jdbc;
		this.dialect = dialect;
		this.sql = new WorkflowSql(dialect, schema);
	}

	/**
	 * Writes the jobs with their links, in the caller's transaction: first the jobs they run
	 * after are locked and checked (so nothing is written for an unknown one), then the
	 * batch, the jobs (by {@code insertRows}), their workflow columns and the edges. A
	 * constant number of round trips, whatever the number of jobs and edges.
	 * @throws InvalidJobException for a job enqueued before that does not exist (never
	 * enqueued, or pruned), or that failed or was cancelled while a job waiting for it would
	 * be cancelled by that ({@link DependencyFailure#CANCEL})
	 */
	LinkedIds insert(LinkedJobs links, Function<List<NewJob>, List<Long>> insertRows) {
		Map<Long, JobStatus> earlier = lockEarlier(links);
		int size = links.jobs().size();
		int[] waitingFor = new int[size];
		boolean[] hasDependents = new boolean[size];
		Set<Long> unfinishedEarlier = new LinkedHashSet<>();
		for (int i = 0; i < size; i++) {
			for (long id : links.earlier().get(i)) {
				JobStatus status = earlier.get(id);
				if (status == JobStatus.FAILED || status == JobStatus.CANCELLED) {
					if (links.policies().get(i) == DependencyFailure.CANCEL) {
						throw new InvalidJobException("Job " + id + " has ended " + status + ", so a job that runs after "
								+ "it would be cancelled at once; retry it first, or let the job run anyway "
								+ "(onDependencyFailure RUN)");
					}
				}
				else if (status != JobStatus.SUCCEEDED) {
					waitingFor[i]++;
					unfinishedEarlier.add(id);
				}
			}
			for (int dependency : links.within().get(i)) {
				waitingFor[i]++;
				hasDependents[dependency] = true;
			}
		}
		Long batchId = null;
		if (links.batch()) {
			int members = size - ((links.callback() >= 0) ? 1 : 0);
			batchId = insertBatch(members);
			if (links.callback() >= 0) {
				waitingFor[links.callback()]++;
			}
		}
		List<Long> ids = insertRows.apply(links.jobs());
		List<Object[]> columns = new ArrayList<>();
		for (int i = 0; i < size; i++) {
			int settles = (hasDependents[i] ? DEPENDENTS : 0) + (links.isMember(i) ? BATCH : 0);
			DependencyFailure policy = links.policies().get(i);
			if (waitingFor[i] > 0 || settles != 0 || policy != DependencyFailure.CANCEL) {
				columns.add(new Object[] { (waitingFor[i] > 0) ? JobStatus.WAITING.name() : JobStatus.QUEUED.name(),
						waitingFor[i], policy.name(), links.isMember(i) ? batchId : null, settles, ids.get(i) });
			}
		}
		this.jdbc.batchUpdate(this.sql.link, columns);
		for (Object[] chunk : IdChunks.of(unfinishedEarlier)) {
			this.jdbc.update(this.sql.markDependencies(chunk.length), chunk);
		}
		// An edge to a job that had ended already is settled from the start: should that job run
		// again (an operator's retry), its next end leaves the new job alone.
		List<Object[]> edges = new ArrayList<>();
		for (int i = 0; i < size; i++) {
			for (long id : links.earlier().get(i)) {
				edges.add(new Object[] { id, ids.get(i), unfinishedEarlier.contains(id) ? 0 : 1 });
			}
			for (int dependency : links.within().get(i)) {
				edges.add(new Object[] { ids.get(dependency), ids.get(i), 0 });
			}
		}
		this.jdbc.batchUpdate(this.sql.insertEdge, edges);
		if (batchId != null && links.callback() >= 0) {
			this.jdbc.update(this.sql.setCallback, ids.get(links.callback()), batchId);
		}
		return new LinkedIds(ids, batchId);
	}

	private Map<Long, JobStatus> lockEarlier(LinkedJobs links) {
		Set<Long> ids = new LinkedHashSet<>();
		links.earlier().forEach(ids::addAll);
		if (ids.isEmpty()) {
			return Map.of();
		}
		if (ids.size() > MAX_EARLIER_DEPENDENCIES) {
			throw new InvalidJobException("Jobs enqueued together may run after at most " + MAX_EARLIER_DEPENDENCIES
					+ " jobs enqueued before, got " + ids.size());
		}
		if (this.sql.writeLockFirst != null) {
			// SQLite: a transaction that reads first cannot write once another has written since.
			this.jdbc.update(this.sql.writeLockFirst);
		}
		Map<Long, JobStatus> statuses = new HashMap<>();
		for (Object[] chunk : IdChunks.of(ids)) {
			this.jdbc.query(this.sql.lockJobs(chunk.length),
					(rs) -> {
						statuses.put(rs.getLong("id"), JobStatus.valueOf(rs.getString("status")));
					}, chunk);
		}
		for (long id : ids) {
			if (!statuses.containsKey(id)) {
				throw new InvalidJobException("No job " + id + " to run after: it was never enqueued, its enqueue "
						+ "has not committed, or it was pruned after its retention");
			}
		}
		return statuses;
	}

	private long insertBatch(int members) {
		KeyHolder key = new GeneratedKeyHolder();
		this.jdbc.update((connection) -> {
			var statement = connection.prepareStatement(this.sql.insertBatch, new String[] { "id" });
			statement.setInt(1, members);
			statement.setInt(2, members);
			return statement;
		}, key);
		Number id = key.getKeys().values().stream().filter(Number.class::isInstance).map(Number.class::cast)
			.findFirst().orElseThrow(() -> new IllegalStateException("Inserted a batch but got no id"));
		return id.longValue();
	}

	/**
	 * Settles what these jobs' ends settle, in the caller's transaction, which has just
	 * written those ends: their dependents are released, or cancelled by their policy (and
	 * what those settle in turn), and their batches count them (releasing a callback when a
	 * batch finishes). Each end is settled once: a job's {@code settles} is cleared here.
	 * However many jobs that touches, each statement binds at most {@link IdChunks#MAX} ids.
	 */
	Settled settle(Collection<Ended> ends) {
		Settled settled = new Settled();
		List<Ended> pending = new ArrayList<>(ends);
		// Counted in the batches once every round has settled its jobs, in the batches' order:
		// a batch row locked between two rounds' job rows could deadlock with another
		// transaction that settles those jobs and that batch the other way round.
		Map<Long, int[]> perBatch = new TreeMap<>();
		while (!pending.isEmpty()) {
			Map<Long, JobStatus> statuses = new HashMap<>();
			pending.forEach((end) -> statuses.put(end.id(), end.status()));
			List<long[]> rows = new ArrayList<>();
			for (Object[] chunk : IdChunks.of(statuses.keySet())) {
				rows.addAll(this.jdbc.query(this.sql.ended(chunk.length),
						(rs, row) -> new long[] { rs.getLong("id"), rs.getInt("settles"), rs.getLong("batch_id") },
						chunk));
			}
			if (rows.isEmpty()) {
				break;
			}
			for (Object[] chunk : IdChunks.of(rows.stream().map((row) -> row[0]).toList())) {
				this.jdbc.update(this.sql.clear(chunk.length), chunk);
			}
			List<Long> withDependents = new ArrayList<>();
			for (long[] row : rows) {
				if ((row[1] & DEPENDENTS) != 0) {
					withDependents.add(row[0]);
				}
				if ((row[1] & BATCH) != 0 && row[2] != 0) {
					int[] counts = perBatch.computeIfAbsent(row[2], (id) -> new int[3]);
					JobStatus status = statuses.get(row[0]);
					counts[(status == JobStatus.SUCCEEDED) ? 0 : (status == JobStatus.FAILED) ? 1 : 2]++;
				}
			}
			pending = settleDependents(withDependents, statuses, settled);
		}
		perBatch.forEach((batchId, counts) -> countInBatch(batchId, counts, settled));
		return settled;
	}

	/** Releases or cancels the waiting dependents of these ended jobs; returns those it cancelled. */
	private List<Ended> settleDependents(List<Long> ended, Map<Long, JobStatus> statuses, Settled settled) {
		if (ended.isEmpty()) {
			return List.of();
		}
		List<long[]> edges = new ArrayList<>();
		for (Object[] chunk : IdChunks.of(ended)) {
			edges.addAll(this.jdbc.query(this.sql.edgesFrom(chunk.length),
					(rs, row) -> new long[] { rs.getLong("depends_on"), rs.getLong("job_id") }, chunk));
			this.jdbc.update(this.sql.settleEdges(chunk.length), chunk);
		}
		Set<Long> dependentIds = new LinkedHashSet<>();
		edges.forEach((edge) -> dependentIds.add(edge[1]));
		Map<Long, Waiting> waiting = new LinkedHashMap<>();
		for (Object[] chunk : IdChunks.of(dependentIds)) {
			this.jdbc.query(this.sql.waitingDependents(chunk.length), (rs) -> {
				waiting.put(rs.getLong("id"), new Waiting(rs.getString("queue"), rs.getString("handler"),
						rs.getInt("waiting_for"), DependencyFailure.valueOf(rs.getString("on_dependency_failure"))));
			}, chunk);
		}
		if (waiting.isEmpty()) {
			return List.of();
		}
		// Cancels first: a job with a failed dependency and a succeeded one, both ending here,
		// must not be released by the one before the other cancels it.
		Map<Long, String> cancels = new LinkedHashMap<>();
		List<Long> releases = new ArrayList<>();
		for (long[] edge : edges) {
			Waiting job = waiting.get(edge[1]);
			if (job == null) {
				continue;
			}
			JobStatus status = statuses.get(edge[0]);
			if (status != JobStatus.SUCCEEDED && job.policy() == DependencyFailure.CANCEL) {
				cancels.putIfAbsent(edge[1], "Not run: job " + edge[0] + ", which it runs after, ended " + status);
			}
			else {
				releases.add(edge[1]);
			}
		}
		List<Ended> cancelled = new ArrayList<>();
		cancels.forEach((id, reason) -> {
			if (this.jdbc.update(this.sql.cancelDependent, reason, id) == 1) {
				cancelled.add(new Ended(id, JobStatus.CANCELLED));
				settled.cancelled.add(new Ended(id, JobStatus.CANCELLED));
				Waiting job = waiting.get(id);
				settled.cancelledJobs.add(new String[] { job.queue(), job.handler() });
			}
		});
		releases.removeIf(cancels::containsKey);
		this.jdbc.batchUpdate(this.sql.release, releases.stream().map((id) -> new Object[] { id }).toList());
		Map<Long, Integer> released = new HashMap<>();
		releases.forEach((id) -> released.merge(id, 1, Integer::sum));
		released.forEach((id, count) -> {
			if (waiting.get(id).waitingFor() == count) {
				settled.releasedQueues.add(waiting.get(id).queue());
			}
		});
		return cancelled;
	}

	private void countInBatch(long batchId, int[] counts, Settled settled) {
		int ended = counts[0] + counts[1] + counts[2];
		this.jdbc.update(this.sql.countInBatch, ended, ended, counts[0], counts[1], counts[2], batchId);
		List<Long> callback = this.jdbc.queryForList(this.sql.finishedCallback, Long.class, batchId);
		if (!callback.isEmpty() && this.jdbc.update(this.sql.release, callback.get(0)) == 1) {
			this.jdbc.query(this.sql.queueAndStatus, (rs) -> {
				if (JobStatus.QUEUED.name().equals(rs.getString("status"))) {
					settled.releasedQueues.add(rs.getString("queue"));
				}
			}, callback.get(0));
		}
	}

	/** Of these leases, those whose job runs under them and has something to settle when it ends. */
	Set<Lease> runningToSettle(List<Lease> leases) {
		Set<Lease> settling = new java.util.HashSet<>();
		for (Object[] chunk : IdChunks.of(leases.stream().map(Lease::jobId).toList())) {
			this.jdbc.query(this.sql.runningToSettle(chunk.length),
					(rs) -> {
						settling.add(new Lease(rs.getLong("id"), rs.getLong("lease_token")));
					}, chunk);
		}
		settling.retainAll(leases);
		return settling;
	}

	/** The job's state now. */
	Optional<JobStatus> statusOf(long id) {
		return this.jdbc.query(this.sql.queueAndStatus, (rs, row) -> JobStatus.valueOf(rs.getString("status")), id)
			.stream()
			.findFirst();
	}

	/** The batch of this id as counted now. */
	public Optional<BatchProgress> batch(long id) {
		return this.jdbc.query(this.sql.batch, this::mapBatch, id).stream().findFirst();
	}

	/** The batch this job belongs to, or whose callback it is. */
	public Optional<BatchProgress> batchOf(long jobId) {
		Optional<JobLinks> links = links(jobId);
		return links.map((job) -> (job.batch() != null) ? job.batch() : job.callbackOf());
	}

	/** Where the job stands in a workflow; empty when there is no such job. */
	public Optional<JobLinks> links(long jobId) {
		List<Object[]> rows = this.jdbc.query(this.sql.links, (rs, row) -> {
			long batch = rs.getLong("batch_id");
			return new Object[] { rs.getInt("waiting_for"), rs.getString("on_dependency_failure"),
					rs.wasNull() ? null : batch };
		}, jobId);
		if (rows.isEmpty()) {
			return Optional.empty();
		}
		Object[] row = rows.get(0);
		BatchProgress batch = (row[2] != null) ? batch((Long) row[2]).orElse(null) : null;
		BatchProgress callbackOf = this.jdbc.query(this.sql.callbackOf, this::mapBatch, jobId).stream().findFirst()
			.orElse(null);
		return Optional.of(new JobLinks(jobId, linked(this.sql.dependenciesOf, jobId),
				linked(this.sql.dependentsOf, jobId), (Integer) row[0], DependencyFailure.valueOf((String) row[1]),
				batch, callbackOf));
	}

	/**
	 * The workflow around this job: every job linked to it through edges, both ways, up to
	 * {@link WorkflowGraph#MAX_JOBS}, read a step of edges at a time. Empty when there is no
	 * such job.
	 */
	public Optional<WorkflowGraph> graph(long jobId) {
		Set<Long> seen = new LinkedHashSet<>(List.of(jobId));
		Set<List<Long>> edges = new LinkedHashSet<>();
		List<Long> frontier = List.of(jobId);
		boolean truncated = false;
		while (!frontier.isEmpty() && !truncated) {
			List<Object> args = new ArrayList<>(frontier);
			args.addAll(frontier);
			List<Long> next = new ArrayList<>();
			for (long[] edge : this.jdbc.query(this.sql.edgesTouching(frontier.size()),
					(rs, row) -> new long[] { rs.getLong("depends_on"), rs.getLong("job_id") }, args.toArray())) {
				edges.add(List.of(edge[0], edge[1]));
				for (long id : edge) {
					if (!seen.contains(id)) {
						if (seen.size() == WorkflowGraph.MAX_JOBS) {
							truncated = true;
						}
						else {
							seen.add(id);
							next.add(id);
						}
					}
				}
			}
			frontier = next;
		}
		List<JobLinks.LinkedJob> jobs = this.jdbc.query(this.sql.linkedJobs(seen.size()), (rs, row) -> new JobLinks.LinkedJob(
				rs.getLong("id"), rs.getString("handler"), JobStatus.valueOf(rs.getString("status"))), seen.toArray());
		if (jobs.stream().noneMatch((job) -> job.id() == jobId)) {
			return Optional.empty();
		}
		Set<Long> present = new java.util.HashSet<>();
		jobs.forEach((job) -> present.add(job.id()));
		List<long[]> shown = edges.stream()
			.filter((edge) -> present.contains(edge.get(0)) && present.contains(edge.get(1)))
			.map((edge) -> new long[] { edge.get(0), edge.get(1) })
			.toList();
		return Optional.of(new WorkflowGraph(jobs, shown, truncated));
	}

	private List<JobLinks.LinkedJob> linked(String query, long jobId) {
		return this.jdbc.query(query, (rs, row) -> new JobLinks.LinkedJob(rs.getLong("id"), rs.getString("handler"),
				JobStatus.valueOf(rs.getString("status"))), jobId);
	}

	/** Forgets the edges of these jobs, pruned after their retention. */
	void forget(List<Long> jobIds) {
		for (Object[] chunk : IdChunks.of(jobIds)) {
			this.jdbc.update(this.sql.forgetDependents(chunk.length), chunk);
			this.jdbc.update(this.sql.forgetDependencies(chunk.length), chunk);
		}
	}

	/**
	 * Deletes batches that finished longer than {@code age} ago, and whose callback (if any)
	 * did too or is gone; returns how many.
	 */
	int pruneBatches(Duration age, int limit) {
		if (this.sql.writeLockFirst != null) {
			// SQLite: a transaction that reads first cannot write once another has written since.
			this.jdbc.update(this.sql.writeLockFirst);
		}
		List<Long> ids = this.jdbc.queryForList(this.sql.prunableBatches, Long.class, -age.toMillis(),
				-age.toMillis(), limit);
		int deleted = 0;
		for (Object[] chunk : IdChunks.of(ids)) {
			deleted += this.jdbc.update(this.sql.deleteBatches(chunk.length), chunk);
		}
		return deleted;
	}

	private BatchProgress mapBatch(ResultSet rs, int row) throws SQLException {
		long callback = rs.getLong("callback_id");
		Long callbackId = rs.wasNull() ? null : callback;
		return new BatchProgress(rs.getLong("id"), rs.getInt("total"), rs.getInt("succeeded"), rs.getInt("failed"),
				rs.getInt("cancelled"), rs.getInt("remaining"), callbackId,
				java.util.Objects.requireNonNull(this.dialect.getTimestamp(rs, "created_at")),
				this.dialect.getTimestamp(rs, "finished_at"));
	}

	/** A job that has just reached a final state. */
	record Ended(long id, JobStatus status) {
	}

	private record Waiting(String queue, String handler, int waitingFor, DependencyFailure policy) {
	}

	/** What settling did beyond the ends it was given: queues that got due jobs, and jobs it cancelled. */
	static final class Settled {

		final Set<String> releasedQueues = new LinkedHashSet<>();

		final List<Ended> cancelled = new ArrayList<>();

		/** Queue and handler of each job in {@link #cancelled}. */
		final List<String[]> cancelledJobs = new ArrayList<>();

	}

}
