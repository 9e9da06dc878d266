package io.sqlqueue.boot.actuate.endpoint;

import org.springframework.boot.actuate.endpoint.OperationResponseBody;

import io.sqlqueue.admin.BulkResult;

/**
 * What a bulk action did ({@link BulkResult}).
 * @param matched the jobs its filter matched
 * @param changed the jobs it changed
 * @param skipped the jobs it passed over: in a state it does not apply to, or changed meanwhile
 */
public record BulkDescriptor(String action, boolean done, long matched, long changed, long skipped, int chunks,
		String message) implements OperationResponseBody {
}
