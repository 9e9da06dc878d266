package io.sqlqueue.boot.autoconfigure;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;

import org.junit.jupiter.api.Test;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.tracing.Tracer;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import io.sqlqueue.JobHandler;
import io.sqlqueue.JobQueue;
import io.sqlqueue.JobStatus;
import io.sqlqueue.observation.JobAttemptContext;
import io.sqlqueue.observation.JobEnqueueContext;
import io.sqlqueue.observation.JobObservations;
import io.sqlqueue.observation.MicrometerJobObservations;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

class SqlQueueObservationsTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class,
				DataSourceTransactionManagerAutoConfiguration.class, JacksonAutoConfiguration.class,
				SqlQueueAutoConfiguration.class))
		.withPropertyValues("spring.datasource.url=jdbc:h2:mem:" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1",
				"sqlqueue.manager.poll-interval=50ms", "sqlqueue.manager.shutdown-timeout=1s")
		.withBean(Recorder.class)
		.withBean(ObservationRegistry.class, () -> {
			ObservationRegistry registry = ObservationRegistry.create();
			registry.observationConfig().observationHandler(new Propagating());
			return registry;
		});

	@Test
	void carriesWhatTheApplicationsHandlersPropagateFromTheEnqueueToEachAttempt() {
		this.runner.run((context) -> {
			assertThat(context).hasNotFailed().hasSingleBean(JobObservations.class);
			assertThat(context.getBean(JobObservations.class)).isInstanceOf(MicrometerJobObservations.class);
			JobQueue queue = context.getBean(JobQueue.class);
			long id = queue.enqueue("record", "hello");
			await().atMost(Duration.ofSeconds(10)).until(() -> queue.find(id).orElseThrow().status() == JobStatus.SUCCEEDED);
			assertThat(queue.find(id).orElseThrow().headers()).isEqualTo("{\"traceparent\":\"from-the-enqueue\"}");
			assertThat(context.getBean(Recorder.class).carriers).containsExactly(Map.of("traceparent", "from-the-enqueue"));
		});
	}

	@Test
	void observesNothingAndStoresNoHeadersWithoutTracingOnTheClassPath() {
		this.runner.withClassLoader(new FilteredClassLoader(Tracer.class)).run((context) -> {
			assertThat(context).hasNotFailed().doesNotHaveBean(JobObservations.class);
			JobQueue queue = context.getBean(JobQueue.class);
			long id = queue.enqueue("record", "hello");
			await().atMost(Duration.ofSeconds(10)).until(() -> queue.find(id).orElseThrow().status() == JobStatus.SUCCEEDED);
			assertThat(queue.find(id).orElseThrow().headers()).isNull();
			assertThat(context.getBean(Recorder.class).carriers).isEmpty();
		});
	}

	@Test
	void canBeSwitchedOff() {
		this.runner.withPropertyValues("sqlqueue.observations.enabled=false").run((context) -> {
			assertThat(context).hasNotFailed().doesNotHaveBean(JobObservations.class);
			JobQueue queue = context.getBean(JobQueue.class);
			assertThat(queue.find(queue.enqueue("record", "x")).orElseThrow().headers()).isNull();
		});
	}

	/** Stands in for Micrometer Tracing's propagating handlers: writes a header at enqueue, reads it per attempt. */
	static final class Propagating implements ObservationHandler<Observation.Context> {

		@Override
		public void onStart(Observation.Context context) {
			if (context instanceof JobEnqueueContext enqueue) {
				enqueue.getSetter().set(enqueue.getCarrier(), "traceparent", "from-the-enqueue");
			}
			else if (context instanceof JobAttemptContext attempt) {
				Recorder.last().carriers.add(Map.copyOf(attempt.getCarrier()));
			}
		}

		@Override
		public boolean supportsContext(Observation.Context context) {
			return true;
		}

	}

	static class Recorder {

		private static volatile Recorder last;

		final List<Map<String, String>> carriers = new CopyOnWriteArrayList<>();

		Recorder() {
			last = this;
		}

		static Recorder last() {
			return last;
		}

		@JobHandler("record")
		String record(String text) {
			return text;
		}

	}

}
