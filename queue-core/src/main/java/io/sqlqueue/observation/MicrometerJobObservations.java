package io.sqlqueue.observation;

import java.util.LinkedHashMap;
import java.util.Map;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.core.JacksonException;
import tools.jackson.core.type.TypeReference;
import tools.jackson.databind.json.JsonMapper;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;

import io.sqlqueue.JobOutcome;
import io.sqlqueue.JobRecord;

/**
 * Observations through an {@link ObservationRegistry}. An enqueue is a producer
 * ({@link JobEnqueueContext}) whose carrier becomes the job's {@code headers}: with Micrometer
 * Tracing, its {@code PropagatingSenderTracingObservationHandler} writes the trace context
 * there (a W3C {@code traceparent} with Spring Boot's defaults). An attempt is a consumer
 * ({@link JobAttemptContext}) whose carrier is those headers, so its
 * {@code PropagatingReceiverTracingObservationHandler} makes the request's trace its parent;
 * each retry is another attempt of the same trace. When no handler writes anything, the
 * headers stay {@code NULL}.
 */
public final class MicrometerJobObservations implements JobObservations {

	private static final Logger logger = LoggerFactory.getLogger(MicrometerJobObservations.class);

	private static final JsonMapper JSON = JsonMapper.builder().build();

	private static final TypeReference<LinkedHashMap<String, String>> HEADERS = new TypeReference<>() {
	};

	private static final JobEnqueueObservationConvention DEFAULT_ENQUEUE = new DefaultJobEnqueueObservationConvention();

	private static final JobAttemptObservationConvention DEFAULT_ATTEMPT = new DefaultJobAttemptObservationConvention();

	private final ObservationRegistry registry;

	private final @Nullable JobEnqueueObservationConvention enqueueConvention;

	private final @Nullable JobAttemptObservationConvention attemptConvention;

	public MicrometerJobObservations(ObservationRegistry registry) {
		this(registry, null, null);
	}

	/** With conventions of the application's own ({@code null} for the defaults). */
	public MicrometerJobObservations(ObservationRegistry registry,
			@Nullable JobEnqueueObservationConvention enqueueConvention,
			@Nullable JobAttemptObservationConvention attemptConvention) {
		this.registry = registry;
		this.enqueueConvention = enqueueConvention;
		this.attemptConvention = attemptConvention;
	}

	@Override
	public Enqueue enqueueStarted(String queue, String handler) {
		if (this.registry.isNoop()) {
			return Enqueue.NONE;
		}
		JobEnqueueContext context = new JobEnqueueContext(queue, handler);
		Observation observation = Observation
			.createNotStarted(this.enqueueConvention, DEFAULT_ENQUEUE, () -> context, this.registry)
			.start();
		return new Enqueue() {
			@Override
			public @Nullable String headers() {
				return encode(context.getHeaders());
			}

			@Override
			public void enqueued(long jobId) {
				context.setJobId(jobId);
				observation.stop();
			}

			@Override
			public void failed(Throwable error) {
				observation.error(error);
				observation.stop();
			}
		};
	}

	@Override
	public Attempt attemptStarted(JobRecord job) {
		if (this.registry.isNoop()) {
			return Attempt.NONE;
		}
		JobAttemptContext context = new JobAttemptContext(job, decode(job.headers(), job.id()));
		Observation observation = Observation
			.createNotStarted(this.attemptConvention, DEFAULT_ATTEMPT, () -> context, this.registry)
			.start();
		Observation.Scope scope = observation.openScope();
		return new Attempt() {
			@Override
			public void error(Throwable error) {
				observation.error(error);
			}

			@Override
			public void stop(@Nullable JobOutcome outcome) {
				context.setOutcome(outcome);
				scope.close();
				observation.stop();
			}
		};
	}

	/** The headers as stored: {@code null} when there are none, so nothing extra is stored. */
	static @Nullable String encode(Map<String, String> headers) {
		return headers.isEmpty() ? null : JSON.writeValueAsString(headers);
	}

	static Map<String, String> decode(@Nullable String headers, long jobId) {
		if (headers == null || headers.isBlank()) {
			return Map.of();
		}
		try {
			Map<String, String> decoded = JSON.readValue(headers, HEADERS);
			return (decoded != null) ? decoded : Map.of();
		}
		catch (JacksonException ex) {
			logger.debug("The headers of job {} are not a JSON object of strings; its attempt starts a new trace",
					jobId, ex);
			return Map.of();
		}
	}

}
