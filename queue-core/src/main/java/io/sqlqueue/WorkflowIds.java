package io.sqlqueue;

import java.util.Map;

/** The ids of a workflow's jobs, by step name, in the order the steps were added. */
public record WorkflowIds(Map<String, Long> ids) {

	/** The id of the named step's job. */
	public long of(String step) {
		Long id = this.ids.get(step);
		if (id == null) {
			throw new IllegalArgumentException("No step '" + step + "' in this workflow");
		}
		return id;
	}

}
