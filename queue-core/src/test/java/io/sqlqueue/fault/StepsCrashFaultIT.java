package io.sqlqueue.fault;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Durable steps under {@code kill -9} (docs/durable-steps.md): workers killed while they run
 * jobs of {@link FaultWorker#STEPS} (plain steps "a" and "c", transactional step "b") and
 * started again. A recorded step never runs again; a plain step runs again only when a
 * killed worker was in its body; the transactional step has exactly one effect. The effects
 * are compared with the steps' records ({@code queue_job_step}) by the database's clock: a
 * plain step's effect is written before its record, in an earlier statement, so an effect
 * later than its step's record is a recorded step that ran again.
 */
class StepsCrashFaultIT extends FaultScenario {

	private static final int JOBS = 1_000;

	/**
	 * Kept queued while a victim comes up and runs (see {@link #keepQueued}): it finds work
	 * however slowly its JVM starts, and little is left to drain after the last kill.
	 */
	private static final int KEEP_QUEUED = 300;

	private static final int KILLS = 2;

	/** Step effects a worker writes in each life before it is killed: it runs at full speed. */
	private static final int EFFECTS_BEFORE_KILL = 60;

	/** The workers the test killed. */
	private static final String KILLED = "(SELECT worker_id FROM fault_event WHERE kind = 'kill')";

	@Override
	protected List<String> handlers() {
		return List.of(FaultWorker.STEPS);
	}

	@Test
	void recordedStepsNeverRunAgainAndTransactionalStepsTakeEffectOnce() throws Exception {
		enqueue(JOBS);
		startWorker("steady");
		WorkerProcess victim = startWorker("victim-1");
		List<Integer> heldAtKills = new ArrayList<>();
		for (int kill = 1; kill <= KILLS; kill++) {
			WorkerProcess current = victim;
			awaitUntil(current + " runs steps", Duration.ofSeconds(60), () -> {
				keepQueued(KEEP_QUEUED);
				return stepEffectsBy(current) >= EFFECTS_BEFORE_KILL && runningHeldBy(current) > 0;
			});
			current.kill();
			event("kill", current);
			heldAtKills.add(runningHeldBy(current));
			victim = startWorker("victim-" + (kill + 1));
		}
		awaitDrained(enqueued());
		stopWorkers();
		FaultChecker.Report report = check(enqueued());
		int jobs = enqueued();
		int interrupted = count("""
				SELECT count(*) FROM (SELECT job_id FROM fault_step_effect GROUP BY job_id
				                      HAVING count(DISTINCT worker_id) > 1) t""");
		// A killed worker's step that no other worker ran, though another ran a later step: replayed from its record.
		int replayed = count("""
				SELECT count(DISTINCT e.job_id) FROM fault_step_effect e
				WHERE e.worker_id IN %s
				  AND NOT EXISTS (SELECT 1 FROM fault_step_effect o WHERE o.job_id = e.job_id AND o.step = e.step
				                  AND o.id <> e.id)
				  AND EXISTS (SELECT 1 FROM fault_step_effect l WHERE l.job_id = e.job_id AND l.step > e.step
				              AND l.worker_id <> e.worker_id)""".formatted(KILLED));
		int plainAgain = count("""
				SELECT coalesce(sum(n - 1), 0) FROM (SELECT count(*) AS n FROM fault_step_effect
				                                     WHERE step IN ('a', 'c') GROUP BY job_id, step) t""");
		System.out.println("StepsCrashFaultIT: kills " + KILLS + ", running jobs held by the victim at each kill "
				+ heldAtKills + ", jobs run by more than one worker " + interrupted
				+ ", jobs that replayed a killed worker's step " + replayed
				+ ", plain steps run again " + plainAgain + ", step effects "
				+ count("SELECT count(*) FROM fault_step_effect"));
		assertThat(report.violations()).as("the checker's verdict (lost jobs, final states)").isEmpty();
		assertThat(count("SELECT count(*) FROM queue_job_step WHERE kind = 'step'")).as("steps recorded")
			.isEqualTo(3 * jobs);
		assertThat(findings("""
				SELECT 'job ' || j.id || ': ' || count(e.id) || ' effects'
				FROM queue_job j LEFT JOIN fault_step_effect e ON e.job_id = j.id AND e.step = 'b'
				GROUP BY j.id HAVING count(e.id) <> 1 ORDER BY j.id""")).as("jobs without exactly one effect of "
						+ "the transactional step").isEmpty();
		assertThat(findings("""
				SELECT 'job ' || e.job_id || ' step ' || e.step || ' ran by ' || e.worker_id || ' at ' || e.at
				       || ', recorded at ' || s.recorded_at
				FROM fault_step_effect e
				JOIN queue_job_step s ON s.job_id = e.job_id AND s.kind = 'step' AND s.name = e.step
				WHERE e.step IN ('a', 'c') AND e.at > s.recorded_at ORDER BY e.id""")).as("plain steps that ran "
						+ "after they were recorded").isEmpty();
		assertThat(findings("""
				SELECT 'job ' || job_id || ' step ' || step || ': ' || string_agg(worker_id, ', ' ORDER BY id)
				FROM fault_step_effect WHERE step IN ('a', 'c')
				GROUP BY job_id, step
				HAVING count(*) FILTER (WHERE worker_id NOT IN %s) > 1 OR count(*) > count(DISTINCT worker_id)
				ORDER BY job_id""".formatted(KILLED))).as("plain steps run again other than after a kill of a "
						+ "worker in their body")
			.isEmpty();
		assertThat(findings("""
				SELECT 'job ' || e.job_id || ' step ' || e.step || ' by ' || e.worker_id || ' attempt ' || e.attempt
				FROM fault_step_effect e
				WHERE NOT EXISTS (%s AND a.at <= e.at) ORDER BY e.id""".formatted(FaultChecker.CLAIM_OF_EFFECT)))
			.as("steps run without a claim by their worker")
			.isEmpty();
		assertThat(heldAtKills).as("running jobs held by the victim at each kill").allSatisfy((held) -> assertThat(held)
			.isPositive());
		assertThat(interrupted).as("jobs interrupted mid-steps and finished by another worker").isPositive();
		assertThat(replayed).as("jobs that replayed a step a killed worker recorded").isPositive();
	}

	private int stepEffectsBy(WorkerProcess worker) {
		return count("SELECT count(*) FROM fault_step_effect WHERE worker_id = ?", worker.id());
	}

	/** One line per finding of {@code query}. */
	private List<String> findings(String query) {
		return this.jdbc.queryForList(query, String.class);
	}

}
