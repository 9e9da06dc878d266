package io.sqlqueue.boot.actuate.endpoint;

import org.springframework.boot.actuate.endpoint.OperationResponseBody;

/**
 * How many jobs match a filter now.
 * @param all whether the filter named nothing (every job), which no bulk action takes
 * @param reads where it was counted, and how far behind that was
 */
public record CountDescriptor(long count, boolean all, ReadsDescriptor reads) implements OperationResponseBody {
}
