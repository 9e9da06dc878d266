package io.sqlqueue.admin;

import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * One page of jobs, newest first, with the cursors of its neighbours (keyset pagination:
 * a cursor is a job id, so any page costs the same however deep it is).
 *
 * @param jobs the jobs, by id descending
 * @param older the {@code before} cursor of the next older page, or {@code null} when none is older
 * @param newer the {@code after} cursor of the next newer page, or {@code null} when this is the newest
 */
public record JobPage(List<JobSummary> jobs, @Nullable Long older, @Nullable Long newer) {
}
