package io.sqlqueue.sample;

import java.util.List;

/**
 * The payload of a {@code report.bundle} job, the callback of a batch of {@code report.build}
 * jobs: the reports of the bundle.
 */
public record BundleReports(List<Long> reportIds) {

}
