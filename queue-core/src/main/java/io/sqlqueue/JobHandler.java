package io.sqlqueue;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a bean method as the handler for jobs with this handler name. Its parameters are
 * the payload (decoded from JSON into the parameter's type) and, optionally, a
 * {@link JobContext}; either may be left out. A returned value is stored as the job's
 * result (JSON). Throwing fails the attempt: it is retried with backoff until
 * {@link #maxAttempts()}, unless the exception is a {@link NonRetryableException} or
 * listed in {@link #noRetryFor()}.
 *
 * <pre>{@code
 * @JobHandler(value = "mail.welcome", queue = "mail", maxAttempts = 5)
 * void sendWelcome(WelcomeMail mail, JobContext context) { ... }
 * }</pre>
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface JobHandler {

	/** The handler name jobs are enqueued with: 1 to 128 of {@code A-Z a-z 0-9 _ . -}. */
	String value();

	/** The queue its jobs go to unless the enqueue names another. */
	String queue() default "default";

	/** Attempts before the job fails for good; 0 means the configured default. */
	int maxAttempts() default 0;

	/**
	 * How long one attempt may run before it is interrupted and counted as failed, such as
	 * {@code "30s"}, {@code "500ms"}, {@code "5m"} or ISO-8601 {@code "PT5M"}; empty means
	 * the configured default.
	 */
	String timeout() default "";

	/** Exceptions (and their subclasses) that fail the job at once instead of being retried. */
	Class<? extends Throwable>[] noRetryFor() default {};

	/**
	 * Whether the handler runs inside the transaction that marks its job {@code SUCCEEDED}
	 * (exactly-once effects for database work): what it writes through Spring JDBC on the
	 * queue's data source commits together with the completion, or not at all — when it
	 * throws, and when its lease was lost by the time it finished. The transaction stays
	 * open while the handler runs: keep such handlers short.
	 */
	boolean transactional() default false;

	/**
	 * Whether the payload decodes leniently: unknown properties are ignored, and missing or
	 * {@code null} ones decode as the application's {@code JsonMapper} is configured to (by
	 * default {@code null}, or a primitive's zero). By default it decodes strictly: a payload with a property the type lacks, or
	 * without (or {@code null} in) a record component or {@code @JsonCreator} parameter that is
	 * neither {@code @Nullable} nor {@code Optional}, fails its job at once with a
	 * {@link io.sqlqueue.PayloadDecodingException} naming the type and the field. Turn it
	 * on while a payload type changes shape and jobs of its old shape still wait.
	 */
	boolean lenientPayload() default false;

	/**
	 * Most jobs with one concurrency key running at once in the handler's queue, across every
	 * instance (docs/flow-control.md): a limit for every key of the queue (the pattern
	 * {@code *}); 0 for none. Configuration ({@code sqlqueue.queues.<queue>.key-limits}) for
	 * the pattern {@code *} of the same queue takes precedence.
	 */
	int concurrencyPerKey() default 0;

	/**
	 * Most starts of jobs with one concurrency key per period in the handler's queue, across
	 * every instance, such as {@code "10/1s"} or {@code "100/1m"}; empty for none. Declared
	 * with {@link #concurrencyPerKey()} as one limit.
	 */
	String ratePerKey() default "";

	/**
	 * Whether the concurrency keys of the handler's queue take turns among its due jobs of
	 * equal priority, across every instance (docs/flow-control.md#fair-turns), so that one
	 * key's flood holds no other key back. Configuration ({@code sqlqueue.queues.<queue>.fair})
	 * for the same queue takes precedence.
	 */
	boolean fair() default false;

	/**
	 * Weights of the fair turns of the handler's queue, each {@code "pattern=weight"}, such as
	 * {@code "gold:*=3"} (a key matching it starts three jobs for one of a key of weight 1);
	 * giving any makes the queue fair. Patterns as for key limits: an exact key, or a prefix
	 * ending in {@code *}; weights from 1 to 1000.
	 */
	String[] fairWeights() default {};

}
