package io.sqlqueue.boot.actuate.endpoint;

import java.time.Instant;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.actuate.endpoint.OperationResponseBody;

import io.sqlqueue.BatchProgress;

/**
 * A batch's progress: its jobs by how they ended, those still pending, and its callback.
 * @param finishedAt when its last job ended, or {@code null} while some are pending
 */
public record BatchDescriptor(long id, int total, int succeeded, int failed, int cancelled, int pending,
		@Nullable Long callbackId, Instant createdAt, @Nullable Instant finishedAt) implements OperationResponseBody {

	BatchDescriptor(BatchProgress batch) {
		this(batch.id(), batch.total(), batch.succeeded(), batch.failed(), batch.cancelled(), batch.pending(),
				batch.callbackId(), batch.createdAt(), batch.finishedAt());
	}

}
