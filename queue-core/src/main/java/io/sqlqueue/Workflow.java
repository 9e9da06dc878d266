package io.sqlqueue;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Jobs and the order between them, enqueued together: each step names the steps it runs
 * after, and may also run after jobs enqueued before ({@link Job#after(long...)}). Steps
 * are added in an order where each names only steps added before it, so the graph has no
 * cycle by construction.
 *
 * <pre>{@code
 * WorkflowIds ids = jobs.enqueue(Workflow.create()
 *         .step("charge", Job.of("payment.charge", order))
 *         .step("ship", Job.of("shipping.ship", order), "charge")
 *         .step("mail", Job.of("mail.shipped", order), "ship"));
 * }</pre>
 *
 * Immutable; each method returns a changed copy.
 */
public final class Workflow {

	private final Map<String, Step> steps;

	private Workflow(Map<String, Step> steps) {
		this.steps = steps;
	}

	public static Workflow create() {
		return new Workflow(Map.of());
	}

	/**
	 * Adds a step: {@code job}, run after the steps named in {@code after} (added before this
	 * one) have succeeded.
	 * @throws InvalidJobException for a name used twice, a step not added yet, or more than
	 * {@link Job#MAX_DEPENDENCIES} dependencies
	 */
	public Workflow step(String name, Job job, String... after) {
		String checked = Names.requireKey("step name", name);
		if (this.steps.containsKey(checked)) {
			throw new InvalidJobException("Step '" + checked + "' is in the workflow twice");
		}
		List<String> names = new ArrayList<>();
		for (String dependency : after) {
			if (!this.steps.containsKey(dependency)) {
				throw new InvalidJobException("Step '" + checked + "' runs after '" + dependency
						+ "', which is not a step added before it (steps name only earlier steps, so a workflow has no cycle)");
			}
			if (!names.contains(dependency)) {
				names.add(dependency);
			}
		}
		if (names.size() + job.after().size() > Job.MAX_DEPENDENCIES) {
			throw new InvalidJobException("Step '" + checked + "' has more than " + Job.MAX_DEPENDENCIES
					+ " dependencies");
		}
		Map<String, Step> steps = new LinkedHashMap<>(this.steps);
		steps.put(checked, new Step(job, List.copyOf(names)));
		return new Workflow(Collections.unmodifiableMap(steps));
	}

	/** The steps in the order they were added. */
	public Map<String, Step> steps() {
		return this.steps;
	}

	/** One step: its job and the names of the steps it runs after. */
	public record Step(Job job, List<String> after) {
	}

}
