package io.sqlqueue.boot.actuate.endpoint;

import java.util.List;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.actuate.endpoint.OperationResponseBody;

import io.sqlqueue.admin.JobSummary;

/**
 * A page of a search, newest first.
 * @param older the {@code before} cursor of the next older page, or {@code null} for none
 * @param newer the {@code after} cursor of the next newer page, or {@code null} for none
 * @param reads where it was read, and how far behind that was
 */
public record SearchDescriptor(List<JobSummary> jobs, @Nullable Long older, @Nullable Long newer,
		ReadsDescriptor reads) implements OperationResponseBody {
}
