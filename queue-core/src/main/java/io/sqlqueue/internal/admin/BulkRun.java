package io.sqlqueue.internal.admin;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import io.sqlqueue.DuplicateJobException;
import io.sqlqueue.JobQueue;
import io.sqlqueue.JobStatus;
import io.sqlqueue.admin.BulkAction;
import io.sqlqueue.admin.BulkResult;
import io.sqlqueue.admin.JobFilter;
import io.sqlqueue.admin.QueueAdmin;
import io.sqlqueue.admin.Refusal;
import io.sqlqueue.admin.RefusedException;
import io.sqlqueue.internal.DefaultJobQueue;
import io.sqlqueue.internal.store.JobStore;

/**
 * One bulk action ({@link QueueAdmin#bulk}): walks the jobs its filter matches by id, in
 * chunks of {@link QueueAdmin#BULK_CHUNK}, up to the highest id when it began, and changes
 * each as the one-job action would. A chunk's ids are read without locks; each change is
 * then fenced by the job's state in a short write of its own: a chunk of plain queued jobs'
 * cancels, or of deletes, in one transaction that locks them first passing over rows another
 * transaction holds; a retry, and the cancel of a running job or one in a workflow, by the
 * one-job path. So a job that a worker claimed or finished meanwhile is changed as its new
 * state allows, or skipped, never half-changed, and no lock is held across chunks.
 */
final class BulkRun {

	private final JobQueue jobs;

	private final JobStore store;

	private final int chunkSize;

	BulkRun(JobQueue jobs, JobStore store, int chunkSize) {
		this.jobs = jobs;
		this.store = store;
		this.chunkSize = chunkSize;
	}

	BulkResult run(BulkAction action, JobFilter filter) {
		if (filter.isEmpty()) {
			throw new RefusedException(Refusal.NO_FILTER);
		}
		long upTo = this.store.browser().maxId();
		long after = 0;
		long matched = 0;
		long changed = 0;
		int chunks = 0;
		while (true) {
			Map<Long, JobStatus> chunk = this.store.browser().idsAfter(filter, after, upTo, this.chunkSize);
			if (chunk.isEmpty()) {
				break;
			}
			chunks++;
			matched += chunk.size();
			List<Long> ids = new ArrayList<>();
			chunk.forEach((id, status) -> {
				if (action.applies(status)) {
					ids.add(id);
				}
			});
			changed += change(action, ids);
			after = chunk.keySet().stream().mapToLong(Long::longValue).max().orElse(after);
			if (chunk.size() < this.chunkSize) {
				break;
			}
		}
		long skipped = matched - changed;
		if (matched == 0) {
			return new BulkResult(action, false, Refusal.NO_MATCHING_JOBS, 0, 0, 0, chunks,
					Refusal.NO_MATCHING_JOBS.message(action.verb()));
		}
		String message = String.format("%s %,d of %,d matching job%s", past(action), changed, matched,
				(matched == 1) ? "" : "s")
				+ ((skipped > 0) ? String.format("; %,d skipped: not in a state to %s, or changed meanwhile", skipped,
						action.verb()) : "");
		return new BulkResult(action, changed > 0, null, matched, changed, skipped, chunks, message);
	}

	/** Changes these jobs, read in a state the action applies to; returns how many changed. */
	private long change(BulkAction action, List<Long> ids) {
		return switch (action) {
			case RETRY -> ids.stream().filter(this::retry).count();
			// As the one-job cancel: a queued job ends CANCELLED with what that settles, a running
			// one is asked to stop, and this instance's listeners hear of both; plain queued
			// jobs many per statement.
			case CANCEL -> (this.jobs instanceof DefaultJobQueue queue) ? queue.cancelAll(ids)
					: ids.stream().filter(this.jobs::cancel).count();
			case DELETE -> ids.isEmpty() ? 0 : this.store.deleteFinished(ids).size();
		};
	}

	private boolean retry(long id) {
		try {
			return this.jobs.retry(id);
		}
		catch (DuplicateJobException ex) {
			// An unfinished job holds its unique key: it stays failed, counted as skipped.
			return false;
		}
	}

	private static String past(BulkAction action) {
		return switch (action) {
			case RETRY -> "Queued again";
			case CANCEL -> "Cancelled (or, running, asked to stop)";
			case DELETE -> "Deleted";
		};
	}

}
