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

	@Bean
	NoopHandler noopHandler() {
		return new NoopHandler();
	}

	static class NoopHandler {

		@JobHandler(NOOP)
		void run(int job) {
			Executions.current.ran(job);
		}

	}

}
