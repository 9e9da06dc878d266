package io.sqlqueue.sample;

import java.util.List;

/**
 * What {@code report.bundle} returns once every report of its bundle was built or failed.
 * @param built the reports built
 * @param failed the reports that failed for good or were cancelled
 */
public record BundleResult(long batchId, int built, int failed, List<Long> reportIds) {

}
