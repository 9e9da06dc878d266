package io.sqlqueue.internal.store;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.jspecify.annotations.Nullable;

import org.springframework.jdbc.core.JdbcTemplate;

import io.sqlqueue.JobRecord;
import io.sqlqueue.Names;

/**
 * Jobs' tags and metadata, in their side tables ({@code queue_job_tag},
 * {@code queue_job_meta}, migration V12): written in the transaction that inserts their
 * jobs, read with a job for people looking at it, deleted with it. No claim or completion
 * reads or writes them. The same statements serve every database.
 */
final class JobLabels {

	private final JdbcTemplate jdbc;

	private final String insertTag;

	private final String insertMeta;

	private final String tagTable;

	private final String metaTable;

	JobLabels(JdbcTemplate jdbc, Dialect dialect, @Nullable String schema) {
		this.jdbc = jdbc;
		String checkedSchema = Names.requireSchema(schema);
		String prefix = (checkedSchema != null) ? dialect.quote(checkedSchema) + "." : "";
		this.tagTable = prefix + "queue_job_tag";
		this.metaTable = prefix + "queue_job_meta";
		this.insertTag = "INSERT INTO %s (job_id, tag) VALUES (?, ?)".formatted(this.tagTable);
		this.insertMeta = "INSERT INTO %s (job_id, meta_name, meta_value) VALUES (?, ?, ?)".formatted(this.metaTable);
	}

	/** Stores the labels of these jobs, inserted under these ids (in job order), in the current transaction. */
	void insert(List<Long> ids, List<NewJob> jobs) {
		List<Object[]> tags = new ArrayList<>();
		List<Object[]> meta = new ArrayList<>();
		for (int i = 0; i < jobs.size(); i++) {
			NewJob job = jobs.get(i);
			long id = ids.get(i);
			job.tags().forEach((tag) -> tags.add(new Object[] { id, tag }));
			job.meta().forEach((name, value) -> meta.add(new Object[] { id, name, value }));
		}
		if (!tags.isEmpty()) {
			this.jdbc.batchUpdate(this.insertTag, tags);
		}
		if (!meta.isEmpty()) {
			this.jdbc.batchUpdate(this.insertMeta, meta);
		}
	}

	/** These jobs with their labels read in. */
	List<JobRecord> withLabels(List<JobRecord> jobs) {
		if (jobs.isEmpty()) {
			return jobs;
		}
		List<Long> ids = jobs.stream().map(JobRecord::id).toList();
		Map<Long, List<String>> tags = tagsOf(ids);
		Map<Long, Map<String, String>> meta = new HashMap<>();
		for (Object[] chunk : IdChunks.of(ids)) {
			String in = placeholders(chunk.length);
			this.jdbc.query("SELECT job_id, meta_name, meta_value FROM %s WHERE job_id IN (%s)"
				.formatted(this.metaTable, in), (rs) -> {
					meta.computeIfAbsent(rs.getLong(1), (id) -> new TreeMap<>()).put(rs.getString(2), rs.getString(3));
				}, chunk);
		}
		if (tags.isEmpty() && meta.isEmpty()) {
			return jobs;
		}
		return jobs.stream()
			.map((job) -> job.withLabels(tags.getOrDefault(job.id(), List.of()), meta.getOrDefault(job.id(), Map.of())))
			.toList();
	}

	/** The tags of these jobs, each job's in name order; a job without tags is left out. */
	Map<Long, List<String>> tagsOf(Collection<Long> ids) {
		Map<Long, List<String>> tags = new HashMap<>();
		for (Object[] chunk : IdChunks.of(ids)) {
			this.jdbc.query("SELECT job_id, tag FROM %s WHERE job_id IN (%s) ORDER BY job_id, tag"
				.formatted(this.tagTable, placeholders(chunk.length)), (rs) -> {
					tags.computeIfAbsent(rs.getLong(1), (id) -> new ArrayList<>()).add(rs.getString(2));
				}, chunk);
		}
		return tags;
	}

	/** Deletes the labels of these jobs (deleted in the same transaction). */
	void forget(Collection<Long> ids) {
		for (Object[] chunk : IdChunks.of(ids)) {
			String in = placeholders(chunk.length);
			this.jdbc.update("DELETE FROM %s WHERE job_id IN (%s)".formatted(this.tagTable, in), chunk);
			this.jdbc.update("DELETE FROM %s WHERE job_id IN (%s)".formatted(this.metaTable, in), chunk);
		}
	}

	private static String placeholders(int count) {
		return String.join(", ", java.util.Collections.nCopies(count, "?"));
	}

}
