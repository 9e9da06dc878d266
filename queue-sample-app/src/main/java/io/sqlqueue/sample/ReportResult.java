package io.sqlqueue.sample;

import java.util.List;

/** What {@code report.build} returns; the queue stores it as the job's result. */
public record ReportResult(long reportId, String kind, List<Reports.ReportLine> lines, int run) {

}
