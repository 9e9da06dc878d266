package io.sqlqueue.schedule;

/** What a schedule does at a tick while the job of its previous tick is still queued or running. */
public enum OverlapPolicy {

	/** Fire no job for this tick (the default): a slow run is never joined by the next. */
	SKIP,

	/** Fire the tick's job anyway. */
	ALLOW

}
