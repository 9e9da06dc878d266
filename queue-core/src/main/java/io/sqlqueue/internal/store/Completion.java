package io.sqlqueue.internal.store;

import org.jspecify.annotations.Nullable;

/**
 * A successful attempt to record: the lease it ran under, the handler's result as JSON, and
 * a note for {@code last_error} when the result could not be stored ({@code null} keeps the
 * job's last error as it is).
 */
public record Completion(Lease lease, @Nullable String result, @Nullable String note) {

	public Completion(Lease lease, @Nullable String result) {
		this(lease, result, null);
	}

}
