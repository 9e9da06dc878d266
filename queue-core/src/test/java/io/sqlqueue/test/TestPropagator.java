package io.sqlqueue.test;

import java.util.List;

import io.micrometer.tracing.Span;
import io.micrometer.tracing.TraceContext;
import io.micrometer.tracing.propagation.Propagator;
import io.micrometer.tracing.test.simple.SimpleTraceContextBuilder;
import io.micrometer.tracing.test.simple.SimpleTracer;

/**
 * A {@code traceparent} propagator for Micrometer's test tracer ({@link SimpleTracer}), which
 * has none of its own: {@code 00-<trace id>-<span id>-01}, in W3C's shape with the test
 * tracer's ids as they are. Brave's and OpenTelemetry's bridges bring the real one.
 */
public final class TestPropagator implements Propagator {

	private final SimpleTracer tracer;

	public TestPropagator(SimpleTracer tracer) {
		this.tracer = tracer;
	}

	@Override
	public List<String> fields() {
		return List.of("traceparent");
	}

	@Override
	public <C> void inject(TraceContext context, C carrier, Setter<C> setter) {
		setter.set(carrier, "traceparent", "00-" + context.traceId() + "-" + context.spanId() + "-01");
	}

	@Override
	public <C> Span.Builder extract(C carrier, Getter<C> getter) {
		String traceparent = getter.get(carrier, "traceparent");
		if (traceparent == null) {
			return this.tracer.spanBuilder();
		}
		String[] parts = traceparent.split("-");
		TraceContext parent = new SimpleTraceContextBuilder().traceId(parts[1]).spanId(parts[2]).sampled(true).build();
		return this.tracer.spanBuilder().setParent(parent);
	}

}
