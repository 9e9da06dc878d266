package io.sqlqueue.internal.store;

import java.util.List;

/**
 * Counts the jobs per queue and state for the stats, the endpoint and the dashboard. The
 * plain way, one grouped query over the table, reads every row: seconds on a table of ten
 * million finished jobs, once each stats interval for the cluster (QueueStats) and whenever
 * the endpoint or the dashboard asks. A database that can do
 * better on a large table (PostgreSQL: {@code PostgresQueueCounter}) counts what operators
 * act on exactly and estimates the rest, marking each estimate ({@link QueueCount#estimated()}).
 */
@FunctionalInterface
public interface QueueCounter {

	List<QueueCount> count();

}
