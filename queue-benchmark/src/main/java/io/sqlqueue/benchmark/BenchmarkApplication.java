package io.sqlqueue.benchmark;

import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;

import io.sqlqueue.JobHandler;

/**
 * One application instance as a user would write it: the starter and a handler bean.
 */
@SpringBootApplication
class BenchmarkApplication {

	static final String NOOP = "bench.noop";

	/** Sleeps {@link Executions#jobMillis()}: a job that takes its time, for the fairness workload. */
	static final String SLEEP = "bench.sleep";

	@Bean
	NoopHandler noopHandler() {
		return new NoopHandler();
	}

	static class NoopHandler {

		@JobHandler(NOOP)
		void run(int job) {
			Executions.current.ran(job);
		}

		@JobHandler(SLEEP)
		void sleep(int job) throws InterruptedException {
			Executions executions = Executions.current;
			executions.ran(job);
			Thread.sleep(executions.jobMillis());
		}

	}

}
