package io.sqlqueue.boot.schedule;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import io.sqlqueue.schedule.MisfirePolicy;
import io.sqlqueue.schedule.OverlapPolicy;

/**
 * Runs a {@link io.sqlqueue.JobHandler @JobHandler} method as a recurring job: at every
 * tick of {@link #cron()} (in {@link #zone()}) or every {@link #every()}, one job for the
 * handler is enqueued, once across all instances. Set exactly one of {@code cron} and
 * {@code every}. The schedule is declared at start-up (where the Manager runs); a mistake
 * in it stops start-up, naming the schedule.
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface Recurring {

	/** Cron expression, six fields with seconds first, such as {@code 0 0 2 * * *}. */
	String cron() default "";

	/** Time zone the cron expression is read in. */
	String zone() default "UTC";

	/** Fixed interval instead of cron, such as {@code 15m}, {@code 1h} or {@code PT30S}; at least 1s. */
	String every() default "";

	/** Name of the schedule; by default the handler's name. */
	String name() default "";

	/** Payload of each tick's job, as JSON text. */
	String payload() default "null";

	MisfirePolicy misfire() default MisfirePolicy.FIRE_ONCE;

	OverlapPolicy overlap() default OverlapPolicy.SKIP;

}
