package io.sqlqueue.sample;

/**
 * The payload of a {@code report.build} job: a reference to the {@code report} row, not the
 * data itself (payloads are JSON in the job row, so keep them small).
 */
public record BuildReport(long reportId) {

}
