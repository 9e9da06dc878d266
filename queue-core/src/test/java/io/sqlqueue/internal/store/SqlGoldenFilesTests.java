package io.sqlqueue.internal.store;

import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;

import javax.sql.DataSource;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import org.springframework.jdbc.core.JdbcOperations;
import org.springframework.jdbc.core.JdbcTemplate;

import io.sqlqueue.JobStatus;
import io.sqlqueue.admin.JobFilter;
import io.sqlqueue.internal.store.h2.H2Dialect;
import io.sqlqueue.internal.store.mariadb.MariaDbDialect;
import io.sqlqueue.internal.store.postgresql.PostgresDialect;
import io.sqlqueue.internal.store.sqlite.SqliteDialect;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

/**
 * Every statement the store runs, rendered per dialect, against the files checked in under
 * {@code src/test/resources/sql/<database>/}: anyone can read a statement whole there (the
 * PostgreSQL claim is {@code sql/postgresql/claim.sql}, a limited queue's claim
 * {@code claim-limited.sql}), and a change to one shows in review as a change of its file.
 * A statement text depends only on the dialect and on counts (handlers, ids, keys): these are
 * rendered with one handler and batches of 100. {@code -Dsqlqueue.sql.write=true} writes the
 * files anew.
 * <p>
 * Every statement field and method of {@link JobSql}, {@link JobEndSql}, {@link LeaseSql},
 * {@link JobReadSql}, {@link JobBulkSql}, {@link FlowSql}, {@link WorkflowSql},
 * {@link ScheduleSql} and {@link ClusterSql} is rendered: the test fails when one is added without being listed
 * here.
 */
class SqlGoldenFilesTests {

	private static final Path FOLDER = Paths.get("src", "test", "resources", "sql");

	private static final boolean WRITE = Boolean.getBoolean("sqlqueue.sql.write");

	/** A batch of jobs (a claim's, a completion flush's), a chunk of ids or keys. */
	private static final int BATCH = 100;

	/** The handlers a claim binds. */
	private static final int HANDLERS = 1;

	static Stream<Dialect> dialects() {
		// MariaDB's, which has every statement of MySQL's and INSERT … RETURNING besides.
		return Stream.of(new PostgresDialect(), MariaDbDialect.forMariaDb(), new H2Dialect(), new SqliteDialect());
	}

	@ParameterizedTest(name = "{0}")
	@MethodSource("dialects")
	void everyStatementMatchesItsFile(Dialect dialect) throws IOException {
		Map<String, String> statements = statements(dialect);
		Path folder = FOLDER.resolve(dialect.name());
		if (WRITE) {
			write(folder, statements);
			return;
		}
		List<String> problems = new ArrayList<>();
		statements.forEach((name, text) -> {
			Path file = folder.resolve(name + ".sql");
			try {
				if (!Files.exists(file)) {
					problems.add(file + " is missing");
				}
				else if (!Files.readString(file, StandardCharsets.UTF_8).equals(text)) {
					problems.add(file + " differs from the statement the store runs");
				}
			}
			catch (IOException ex) {
				problems.add(file + " cannot be read: " + ex.getMessage());
			}
		});
		for (String stale : stale(folder, statements)) {
			problems.add(folder.resolve(stale) + " is no statement the store runs any more");
		}
		if (!problems.isEmpty()) {
			fail(String.join("\n", problems) + "\nIf the change is meant, write the files anew and review them: "
					+ "./mvnw -pl queue-core test -Dtest=SqlGoldenFilesTests -Dsqlqueue.sql.write=true");
		}
	}

	private static void write(Path folder, Map<String, String> statements) throws IOException {
		Files.createDirectories(folder);
		for (String stale : stale(folder, statements)) {
			Files.delete(folder.resolve(stale));
		}
		for (Map.Entry<String, String> statement : statements.entrySet()) {
			Files.writeString(folder.resolve(statement.getKey() + ".sql"), statement.getValue(),
					StandardCharsets.UTF_8);
		}
	}

	private static Set<String> stale(Path folder, Map<String, String> statements) throws IOException {
		Set<String> stale = new TreeSet<>();
		if (Files.isDirectory(folder)) {
			try (Stream<Path> files = Files.list(folder)) {
				files.map((file) -> file.getFileName().toString())
					.filter((file) -> file.endsWith(".sql"))
					.filter((file) -> !statements.containsKey(file.substring(0, file.length() - ".sql".length())))
					.forEach(stale::add);
			}
		}
		return stale;
	}

	/** Every statement of the dialect, by file name (without {@code .sql}), in a stable order. */
	static Map<String, String> statements(Dialect dialect) {
		Statements all = new Statements();
		JobSql jobs = new JobSql(dialect, null);
		JobEndSql ends = new JobEndSql(dialect, null);
		LeaseSql leases = new LeaseSql(dialect, null);
		JobReadSql reads = new JobReadSql(dialect, null);
		JobBulkSql bulk = new JobBulkSql(dialect, null);
		FlowSql flows = new FlowSql(dialect, null);
		WorkflowSql workflows = new WorkflowSql(dialect, null);
		ScheduleSql schedules = new ScheduleSql(dialect, null);
		claims(dialect, jobs, flows, all);
		// The jobs' table's statements, one class per use, under one prefix: job-<statement>.
		all.fields("job-", jobs, Set.of("tableName"));
		all.fields("job-", ends, Set.of());
		all.fields("job-", leases, Set.of());
		all.fields("job-", reads, Set.of());
		all.fields("job-", bulk, Set.of());
		all.covered(JobSql.class, "makeDue", "insertRows", "claimReturning", "claimReturningPast", "limitedCandidates", "claimQueued",
				"claimQueuedPassingOverLocked", "lockQueued", "claimedWith", "lockReadyJobs", "readyJobsQuery",
				"claimIds", "fairPriority", "fairDueAbove", "fairKeys", "fairHeads");
		all.covered(JobEndSql.class, "plain", "completeLocked", "awaitedAmong", "plainQueuedAmong", "cancelPlainAmong");
		all.covered(LeaseSql.class, "lockRunning", "lockPlainRunning", "running");
		all.covered(JobReadSql.class, "finishedUnder", "findAll", "cancelRequested");
		all.covered(JobBulkSql.class, "finishedAmong", "deleteFinishedAmong");
		for (String write : List.of("complete", "reschedule", "finish", "release", "cancel", "expire", "reap",
				"completeWhileLeased")) {
			all.put("job-" + kebab(write) + "-plain", ends.plain(field(ends, write)));
		}
		all.put("job-make-due", jobs.makeDue(HANDLERS));
		all.put("job-insert-rows", jobs.insertRows(3));
		all.put("job-complete-locked", ends.completeLocked(4));
		all.put("job-lock-plain-running", leases.lockPlainRunning(BATCH));
		all.put("job-finished-under", reads.finishedUnder(BATCH));
		all.put("job-find-all", reads.findAll(BATCH));
		all.put("job-cancel-requested", reads.cancelRequested(BATCH));
		all.put("job-lock-running", leases.lockRunning(BATCH));
		all.put("job-running", leases.running(BATCH));
		all.put("job-awaited-among", ends.awaitedAmong(BATCH));
		all.put("job-bulk-delete", sequence("-- 1. Lock the finished jobs of the chunk, passing over locked rows.",
				bulk.finishedAmong(BATCH, dialect.supports(ClaimMethod.LOCK_THEN_UPDATE)),
				"-- 2. Delete those (then their edges and labels).", bulk.deleteFinishedAmong(BATCH)));
		all.put("job-bulk-cancel", sequence("-- 1. Lock the chunk's queued jobs that settle nothing, passing over locked rows.",
				ends.plainQueuedAmong(BATCH, dialect.supports(ClaimMethod.LOCK_THEN_UPDATE)),
				"-- 2. Cancel those; the others go one by one.", ends.cancelPlainAmong(BATCH)));
		all.fields("flow-", flows, Set.of());
		all.covered(FlowSql.class, "windowsOf");
		all.put("flow-windows-of", flows.windowsOf(BATCH));
		all.fields("workflow-", workflows, Set.of());
		all.covered(WorkflowSql.class, "lockJobs", "markDependencies", "ended", "clear", "edgesFrom", "settleEdges",
				"waitingDependents", "runningToSettle", "edgesTouching", "linkedJobs", "deleteBatches",
				"forgetDependents", "forgetDependencies");
		all.put("workflow-lock-jobs", workflows.lockJobs(BATCH));
		all.put("workflow-mark-dependencies", workflows.markDependencies(BATCH));
		all.put("workflow-ended", workflows.ended(BATCH));
		all.put("workflow-clear", workflows.clear(BATCH));
		all.put("workflow-edges-from", workflows.edgesFrom(BATCH));
		all.put("workflow-settle-edges", workflows.settleEdges(BATCH));
		all.put("workflow-waiting-dependents", workflows.waitingDependents(BATCH));
		all.put("workflow-running-to-settle", workflows.runningToSettle(BATCH));
		all.put("workflow-edges-touching", workflows.edgesTouching(BATCH));
		all.put("workflow-linked-jobs", workflows.linkedJobs(BATCH));
		all.put("workflow-delete-batches", workflows.deleteBatches(BATCH));
		all.put("workflow-forget-dependents", workflows.forgetDependents(BATCH));
		all.put("workflow-forget-dependencies", workflows.forgetDependencies(BATCH));
		all.fields("schedule-", schedules, Set.of());
		all.fields("cluster-", new ClusterSql(dialect, null), Set.of());
		AttemptSql attempts = new AttemptSql(dialect, null);
		all.fields("attempt-", attempts, Set.of());
		all.covered(AttemptSql.class, "recordEnded", "recordCompletedFrom", "forget");
		all.put("attempt-record-ended", attempts.recordEnded(BATCH));
		all.put("attempt-record-completed-from", attempts.recordCompletedFrom("done"));
		all.put("attempt-forget", attempts.forget(BATCH));
		all.fields("audit-", new AuditSql(dialect, null), Set.of());
		browse(dialect, all);
		all.put("dialect-notify", dialect.notifyStatement());
		all.put("dialect-unvacuumed", dialect.unvacuumedQuery());
		all.put("dialect-custom-plans", dialect.customPlansStatement());
		all.put("dialect-bound-lock-waits", boundLockWaits(dialect));
		all.put("reset", String.join(";\n", new QueueReset(neverConnects(), dialect, null).statements()));
		List<String> tableHealth = dialect.tableHealthReader(new JdbcTemplate(neverConnects()), null).statements();
		all.put("table-health", tableHealth.isEmpty() ? null : String.join(";\n\n", tableHealth));
		List<String> replicaLag = dialect.replicaLagReader(new JdbcTemplate(neverConnects())).statements();
		all.put("replica-lag", replicaLag.isEmpty() ? null : String.join(";\n\n", replicaLag));
		all.checkCovered();
		return all.statements;
	}

	/**
	 * The claims whole: {@code claim} by the dialect's own claim method, {@code claim-<method>} by
	 * each other it supports, {@code claim-limited} a limited queue's (docs/flow-control.md),
	 * each statement in the order the claim runs it.
	 */
	private static void claims(Dialect dialect, JobSql jobs, FlowSql flows, Statements all) {
		for (ClaimMethod method : ClaimMethod.values()) {
			if (!dialect.supports(method)) {
				continue;
			}
			String text = switch (method) {
				case UPDATE_RETURNING -> sequence("-- One statement: lock the due jobs (passing over locked rows), "
						+ "claim them, return them.", jobs.claimReturning(HANDLERS));
				case LOCK_THEN_UPDATE -> sequence("-- 1. Lock the due jobs, passing over locked rows.",
						jobs.lockReadyJobs(HANDLERS), "-- 2. Claim those locked, by id.", jobs.claimIds(BATCH));
				case COMPARE_AND_SET -> sequence("-- 1. Read the due jobs, unlocked.", jobs.readyJobsQuery(HANDLERS),
						"-- 2. Claim each, if its version did not move since it was read.", jobs.claimIfUnchanged);
			};
			all.put((method == dialect.claimMethod()) ? "claim" : "claim-" + kebab(method.name()), text);
		}
		String pastMark = jobs.claimReturningPast(HANDLERS);
		if (pastMark != null) {
			all.put("claim-past-mark", sequence("-- Through a backlog: the claim that starts where the last one ended.",
					pastMark));
		}
		List<String> limited = new ArrayList<>();
		if (flows.writeLock != null) {
			limited.addAll(List.of("-- 0. Take the database's write lock (no row locks here).", flows.writeLock));
		}
		limited.addAll(List.of("-- 1. Lock the queue's flow row: claims of one queue take turns.", flows.lockFlow,
				"-- 2. Where a key may be full: count the running jobs by key.", flows.runningByKey,
				"-- 3. Read due jobs in run order, unlocked (the first page counts the queue's running jobs).",
				jobs.limitedCandidates(new JobSql.CandidateRead(HANDLERS, 0, 0, false, true)),
				"-- 4. Read the rate windows of the candidates' keys.", flows.windowsOf(BATCH)));
		String inOne = jobs.claimQueuedPassingOverLocked(BATCH);
		if (inOne != null) {
			limited.addAll(List.of("-- 5. Claim the admitted jobs by id, passing over locked rows.", inOne));
		}
		else if (dialect.supports(ClaimMethod.LOCK_THEN_UPDATE)) {
			limited.addAll(List.of("-- 5. Lock the admitted jobs still queued, passing over locked rows.",
					jobs.lockQueued(BATCH), "-- 6. Claim those locked.", jobs.claimQueued(BATCH)));
		}
		else {
			limited.addAll(List.of("-- 5. Claim the admitted jobs still queued (one writer holds every row).",
					jobs.claimQueued(BATCH), "-- 6. When fewer were claimed: which are this claim's.",
					jobs.claimedWith(BATCH)));
		}
		limited.addAll(List.of("-- Then: count the starts in the queue's rate window.", flows.updateFlowWindow));
		if (flows.upsertWindows != null) {
			limited.addAll(List.of("-- and in the keys' windows, in one statement.", flows.upsertWindows));
		}
		else {
			limited.addAll(List.of("-- and in the keys' windows: those there,", flows.updateWindow, "-- and those new.",
					flows.insertWindow));
		}
		all.put("claim-limited", sequence(limited.toArray(String[]::new)));
		all.put("claim-fair", sequence("-- A fair queue's claim (docs/flow-control.md#fair-turns), after 1. and 2. above:",
				"-- 3. Whether a job is due above the priority this instance served last; if so (or at first), "
						+ "the highest priority with a job due (then each lower one, while there is room).",
				jobs.fairDueAbove(HANDLERS), jobs.fairPriority(HANDLERS, false), jobs.fairPriority(HANDLERS, true),
				"-- 4. Every 100 ms per instance: the keys with jobs queued at that priority, key to key along the "
						+ "fair index, and those in the turns; the new ones enter the turns.",
				jobs.fairKeys(), flows.fairKeys, flows.insertFairKey,
				"-- 5. The keys in the turns (ordered by pass here).", flows.fairKeys,
				"-- 6. The first due jobs of the keys whose turn it is, each past where this instance last took "
						+ "its jobs, in an arm of its own.",
				jobs.fairHeads(HANDLERS, 2, true),
				"-- 7. Claim the admitted jobs as a limited claim does; then write the turns and the keys that leave them.",
				flows.updateFairKey, flows.deleteFairKey));
		all.put("claim-limited-next-page",
				jobs.limitedCandidates(new JobSql.CandidateRead(HANDLERS, 8, 0, true, false)));
		all.put("claim-limited-passing-over",
				jobs.limitedCandidates(new JobSql.CandidateRead(HANDLERS, 0, 128, false, false)));
	}

	/** The dashboard's and the endpoint's reads ({@link JobBrowser}). */
	private static void browse(Dialect dialect, Statements all) {
		JobBrowser browser = new JobBrowser(neverConnects(), dialect, null);
		all.put("browse-queued-by-queue", browser.queuedByQueueQuery());
		all.put("browse-page", browser.pageQuery(JobFilter.ALL, null, null, 51).sql());
		all.put("browse-page-older", browser.pageQuery(JobFilter.ALL, 1000L, null, 51).sql());
		all.put("browse-page-newer", browser.pageQuery(JobFilter.ALL, null, 1000L, 51).sql());
		all.put("browse-page-filtered",
				browser.pageQuery(new JobFilter("mail", "send", JobStatus.FAILED, "42"), 1000L, null, 51).sql());
		all.put("browse-page-of-batch",
				browser.pageQuery(new JobFilter(null, null, null, "key").inBatch(7), null, null, 51).sql());
		all.put("browse-finished-per-minute", browser.finishedPerMinuteQuery(5).sql());
		JobFilter labelled = JobFilter.builder().tag("campaign-42", "vip").meta("tenant", "acme").queue("mail")
			.createdFrom(java.time.Instant.EPOCH).build();
		all.put("search-page-by-tags-and-meta", browser.pageQuery(labelled, 1000L, null, 51).sql());
		all.put("search-page-by-meta", browser.pageQuery(JobFilter.builder().meta("tenant", "acme").build(), null,
				1000L, 51).sql());
		all.put("search-count", browser.countQuery(labelled).sql());
		all.put("search-bulk-chunk", browser.idsQuery(labelled, 1000L, 100_000L, 500).sql());
		if (dialect.jsonFieldText("j.payload") != null) {
			all.put("search-page-by-payload", browser.pageQuery(
					JobFilter.builder().payload("customer.id", "7").build(), 1000L, null, 51).sql());
		}
	}

	/** What the dialect runs to bound its lock waits, and to set them back. */
	private static @Nullable String boundLockWaits(Dialect dialect) {
		List<String> run = new ArrayList<>();
		JdbcOperations recording = (JdbcOperations) Proxy.newProxyInstance(JdbcOperations.class.getClassLoader(),
				new Class<?>[] { JdbcOperations.class }, (proxy, method, args) -> {
					run.add((String) args[0]);
					return (method.getReturnType() == Object.class) ? 5_000L : null;
				});
		Runnable restore = dialect.boundLockWaits(recording, Duration.ofSeconds(1));
		if (restore != null) {
			restore.run();
		}
		return run.isEmpty() ? null : String.join(";\n", run);
	}

	private static DataSource neverConnects() {
		return (DataSource) Proxy.newProxyInstance(DataSource.class.getClassLoader(),
				new Class<?>[] { DataSource.class }, (proxy, method, args) -> {
					throw new UnsupportedOperationException("Rendering statements needs no database");
				});
	}

	private static String sequence(String... parts) {
		StringBuilder text = new StringBuilder();
		for (String part : parts) {
			if (part.startsWith("-- ")) {
				text.append((text.length() > 0) ? "\n" : "").append(part).append('\n');
			}
			else {
				text.append(part).append(";\n");
			}
		}
		return text.toString().stripTrailing();
	}

	private static String field(Object sql, String name) {
		try {
			Field field = sql.getClass().getDeclaredField(name);
			return (String) field.get(sql);
		}
		catch (ReflectiveOperationException ex) {
			throw new IllegalStateException(ex);
		}
	}

	static String kebab(String name) {
		return name.replaceAll("([a-z0-9])([A-Z])", "$1-$2").replace('_', '-').toLowerCase(Locale.ROOT);
	}

	/** The statements by name, and which statement methods of the SQL classes were rendered. */
	private static final class Statements {

		final Map<String, String> statements = new LinkedHashMap<>();

		private final Map<Class<?>, Set<String>> covered = new LinkedHashMap<>();

		void put(String name, @Nullable String text) {
			if (text == null) {
				return;
			}
			if (this.statements.containsKey(name)) {
				throw new IllegalStateException("Two statements named " + name);
			}
			this.statements.put(name, text.endsWith("\n") ? text : text + "\n");
		}

		/** Every statement field (non-private, of type String) of the object, but those left out. */
		void fields(String prefix, Object sql, Set<String> leftOut) {
			Field[] fields = sql.getClass().getDeclaredFields();
			Arrays.sort(fields, (a, b) -> a.getName().compareTo(b.getName()));
			for (Field field : fields) {
				int modifiers = field.getModifiers();
				if (field.getType() == String.class && !Modifier.isPrivate(modifiers) && !Modifier.isStatic(modifiers)
						&& !leftOut.contains(field.getName())) {
					put(prefix + kebab(field.getName()), field(sql, field.getName()));
				}
			}
		}

		void covered(Class<?> type, String... methods) {
			this.covered.computeIfAbsent(type, (key) -> new TreeSet<>()).addAll(List.of(methods));
		}

		/** Fails when a statement method of a SQL class is not rendered. */
		void checkCovered() {
			this.covered.forEach((type, names) -> {
				Set<String> declared = new TreeSet<>();
				for (Method method : type.getDeclaredMethods()) {
					if (method.getReturnType() == String.class && !Modifier.isPrivate(method.getModifiers())
							&& !Modifier.isStatic(method.getModifiers()) && !method.isSynthetic()) {
						declared.add(method.getName());
					}
				}
				assertThat(names).as("the statement methods of %s that the golden files render "
						+ "(render a new one in %s)", type.getSimpleName(), SqlGoldenFilesTests.class.getSimpleName())
					.isEqualTo(declared);
			});
		}

	}

}
