package io.sqlqueue.sample;

import java.util.Arrays;
import java.util.stream.Stream;

import org.springframework.boot.SpringApplication;

/**
 * The sample with the test class path, for {@code spring-boot:test-run}: there the
 * {@code embedded-postgres} profile finds its {@link EmbeddedPostgresConfiguration}.
 */
public final class TestSampleApplication {

	private TestSampleApplication() {
	}

	public static void main(String[] args) {
		// The test kit is on this class path too; its hold on the Manager is for tests, not a run.
		String[] withWorkers = Stream.concat(Stream.of("--spring.autoconfigure.exclude="
				+ "io.sqlqueue.testkit.autoconfigure.SqlQueueTestAutoConfiguration"), Arrays.stream(args))
			.toArray(String[]::new);
		SpringApplication.from(SampleApplication::main).run(withWorkers);
	}

}
