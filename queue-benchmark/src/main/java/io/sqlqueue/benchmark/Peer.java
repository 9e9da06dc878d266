package io.sqlqueue.benchmark;

/**
 * One queue measured in the comparison: it enqueues N no-op jobs with its own batch API,
 * then starts its workers, which run each job once (telling {@link Executions}), until its
 * own table says every job is done. A fresh peer serves one measurement.
 */
interface Peer extends AutoCloseable {

	/** The label in the results. */
	String name();

	/** The claim batch of the floor this peer is compared with. */
	int comparedBatch();

	/** Enqueues jobs numbered 0 to {@code jobs - 1} with the peer's batch API. */
	void enqueue(int jobs);

	/** Starts the workers; they claim at once. */
	void startWorkers();

	/** Whether the peer's table says all {@code jobs} are done. */
	boolean allDone(int jobs);

	/** What its connections call themselves ({@code application_name}), to count their database CPU. */
	String applicationName();

	@Override
	void close();

}
