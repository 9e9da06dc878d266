package io.sqlqueue;

import java.lang.reflect.Method;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

import io.sqlqueue.handler.HandlerDefinition;
import io.sqlqueue.internal.handler.MethodJobInvoker;
import io.sqlqueue.internal.store.Backlog;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * Bad input on every database: what cannot be stored is refused at enqueue with nothing
 * written, and what a handler cannot take or give back ends its job with a clear error. The
 * catalogue has one test per row of docs/guarantees.md's "What happens to bad input".
 * {@link QueueConformanceTests} implements this.
 */
interface BadInputConformance extends ConformanceSupport {

	// --- bad input

	@Test
	default void jobOfAHandlerNoInstanceHasStaysQueuedUntouchedAndShowsAsStale() {
		handler("known", (payload, context) -> null);
		fixture().startManager((s) -> s);
		long unknown = fixture().queue().enqueue("nobody.handles.this", Map.of("x", 1));
		long known = fixture().queue().enqueue("known", null);
		awaitStatus(known, JobStatus.SUCCEEDED);
		// Time must pass: a touch of the unknown job would come with no event to wait for.
		await().pollDelay(Duration.ofMillis(200)).atMost(WAIT).until(() -> true);
		JobRecord job = fixture().job(unknown);
		assertThat(job.status()).isEqualTo(JobStatus.QUEUED);
		assertThat(job.attempts()).isZero();
		assertThat(job.version()).isZero();
		List<Backlog> backlog = fixture().store().dueBacklog();
		assertThat(backlog).singleElement().satisfies((stale) -> {
			assertThat(stale.handler()).isEqualTo("nobody.handles.this");
			assertThat(stale.dueJobs()).isEqualTo(1);
			assertThat(stale.oldestAge()).isGreaterThan(Duration.ZERO);
		});
	}

	@Test
	default void undecodablePayloadFailsAtOnceWithAClearError() throws Exception {
		Greeter greeter = new Greeter();
		fixture().register(HandlerDefinition.of("greet", "default", new MethodJobInvoker(greeter,
				Greeter.class.getDeclaredMethod("greet", Greeting.class, JobContext.class), "greet",
				fixture().codec())));
		fixture().startManager((s) -> s);
		long id = fixture().queue().enqueue("greet", List.of("not", "a", "greeting"));
		awaitStatus(id, JobStatus.FAILED);
		JobRecord job = fixture().job(id);
		assertThat(job.attempts()).isEqualTo(1);
		assertThat(job.lastError()).contains("PayloadDecodingException")
			.contains("cannot be decoded as " + Greeting.class.getName());
		assertThat(greeter.calls).hasValue(0);
	}

	@Test
	default void payloadOfAnotherShapeFailsAtOnceNamingTheField() throws Exception {
		Greeter greeter = new Greeter();
		Method greet = Greeter.class.getDeclaredMethod("greet", Greeting.class, JobContext.class);
		fixture().register(HandlerDefinition.of("greet", "default",
				new MethodJobInvoker(greeter, greet, "greet", fixture().codec())));
		fixture().startManager((s) -> s);
		long otherType = fixture().queue().enqueue("greet", Map.of("customer", "acme", "copies", 7));
		long unknown = fixture().queue().enqueue("greet", Map.of("name", "Grace", "times", 2, "nickname", "x"));
		long missing = fixture().queue().enqueue("greet", Map.of("times", 2));
		Map<String, Object> nullName = new HashMap<>();
		nullName.put("name", null);
		nullName.put("times", 2);
		long nulled = fixture().queue().enqueue("greet", nullName);
		long missingNumber = fixture().queue().enqueue("greet", Map.of("name", "Grace"));
		Map<Long, String> fields = Map.of(otherType, "'name'", unknown, "Unrecognized property \"nickname\"",
				missing, "'name'", nulled, "\"name\"", missingNumber, "'times'");
		fields.forEach((id, field) -> {
			await().atMost(WAIT).pollInterval(Duration.ofMillis(20)).until(() -> fixture().status(id).isFinished());
			JobRecord job = fixture().job(id);
			assertThat(job.status()).as("status of job %d", id).isEqualTo(JobStatus.FAILED);
			assertThat(job.attempts()).as("attempts of job %d", id).isEqualTo(1);
			assertThat(job.lastError()).contains("PayloadDecodingException")
				.contains("cannot be decoded as " + Greeting.class.getName())
				.contains(field);
		});
		assertThat(greeter.calls).hasValue(0);
	}

	@Test
	default void lenientHandlerRunsAPayloadOfAnotherShape() throws Exception {
		Greeter greeter = new Greeter();
		Method greet = Greeter.class.getDeclaredMethod("greet", Greeting.class, JobContext.class);
		fixture().register(new HandlerDefinition("greet", "default", null, null, Set.of(),
				new MethodJobInvoker(greeter, greet, "greet", fixture().codec(), true), "greet", false, true));
		fixture().startManager((s) -> s);
		long id = fixture().queue().enqueue("greet", Map.of("times", 2, "nickname", "Amazing"));
		awaitStatus(id, JobStatus.SUCCEEDED);
		assertThat(fixture().job(id).result()).isEqualTo("\"Hello null x2 (job " + id + ")\"");
	}

	@Test
	default void oversizedPayloadIsRejectedAtEnqueueAndNothingIsWritten() {
		assertThatThrownBy(() -> fixture().queue().enqueue("work", "x".repeat(5000)))
			.isInstanceOf(InvalidJobException.class)
			.hasMessageContaining("over the limit of 4096");
		assertThatThrownBy(() -> fixture().queue()
			.enqueueAll(List.of(Job.of("work", "small"), Job.of("work", "y".repeat(5000)))))
			.isInstanceOf(InvalidJobException.class);
		assertThat(fixture().count("1 = 1")).isZero();
	}

	@Test
	default void invalidNamesAreRejectedAtEnqueueAndNothingIsWritten() {
		String injection = "x'; DROP TABLE queue_job; --";
		assertThatThrownBy(() -> fixture().queue().enqueue(Job.of("work", null).queue(injection)))
			.isInstanceOf(InvalidJobException.class)
			.hasMessageContaining("Invalid queue name");
		assertThatThrownBy(() -> fixture().queue().enqueue(injection, null))
			.isInstanceOf(InvalidJobException.class)
			.hasMessageContaining("Invalid handler name");
		assertThatThrownBy(() -> fixture().queue().enqueue("", null)).isInstanceOf(InvalidJobException.class);
		assertThatThrownBy(() -> fixture().queue().enqueue(Job.of("work", null).queue("q".repeat(65))))
			.isInstanceOf(InvalidJobException.class);
		assertThatThrownBy(() -> fixture().queue().enqueue(Job.of("work", null).maxAttempts(0)))
			.isInstanceOf(InvalidJobException.class);
		assertThat(fixture().count("1 = 1")).isZero();
	}

	@Test
	default void claimBindsNamesAsParameters() {
		String injection = "x' OR '1'='1";
		fixture().queue().enqueue("work", null);
		assertThat(claim(injection, 10, injection)).isEmpty();
		assertThat(fixture().count("status = 'QUEUED'")).isEqualTo(1);
	}

	// --- bad input catalogue (docs/guarantees.md, "What happens to bad input": one test per row)

	private void assertRejectedAndNothingWritten(org.assertj.core.api.ThrowableAssert.ThrowingCallable enqueue,
			String cause) {
		int before = fixture().count("1 = 1");
		assertThatThrownBy(enqueue).isInstanceOf(InvalidJobException.class).hasMessageContaining(cause);
		assertThat(fixture().count("1 = 1")).isEqualTo(before);
	}

	/** {@code depth} arrays, one inside the other: {@code [[[]]]} for 3. */
	private static Object nestedArrays(int depth) {
		Object value = List.of();
		for (int i = 1; i < depth; i++) {
			value = List.of(value);
		}
		return value;
	}

	/** {@code depth} objects, one inside the other: {@code {"a":{"a":{}}}} for 3. */
	private static Object nestedObjects(int depth) {
		Object value = Map.of();
		for (int i = 1; i < depth; i++) {
			value = Map.of("a", value);
		}
		return value;
	}

	@Test
	default void payloadWithANulCharacterIsRejectedOnEveryDatabase() {
		assertRejectedAndNothingWritten(() -> fixture().queue().enqueue("work", Map.of("s", "a\u0000b")), "NUL");
		assertRejectedAndNothingWritten(() -> fixture().queue().enqueue("work", Map.of("key\u0000", 1)), "NUL");
		assertRejectedAndNothingWritten(() -> fixture().queue()
			.enqueueAll(List.of(Job.of("work", "fine"), Job.of("work", List.of("\u0000")))), "NUL");
		assertThat(fixture().count("1 = 1")).isZero();
		// Only the character itself: a backslash followed by "u0000", and other control
		// characters, are ordinary payload.
		long text = fixture().queue().enqueue("work", "C:\\u0000");
		long control = fixture().queue().enqueue("work", "a\u0001\u001fb");
		assertThat(fixture().job(text).payload()).isEqualTo("\"C:\\\\u0000\"");
		assertThat(JSON.readValue(fixture().job(control).payload(), String.class)).isEqualTo("a\u0001\u001fb");
	}

	@Test
	default void payloadNestedAsDeepAsTheDatabaseStoresIsStoredAndOneLevelDeeperIsRejected() {
		int depth = isolatedDatabase().dialect().maxJsonDepth();
		long arrays = fixture().queue().enqueue("work", nestedArrays(depth));
		long objects = fixture().queue().enqueue("work", nestedObjects(depth));
		assertThat(fixture().job(arrays).payload().replace(" ", ""))
			.isEqualTo("[".repeat(depth) + "]".repeat(depth));
		assertThat(fixture().job(objects).payload().replace(" ", ""))
			.isEqualTo("{\"a\":".repeat(depth - 1) + "{}" + "}".repeat(depth - 1));
		assertRejectedAndNothingWritten(() -> fixture().queue().enqueue("work", nestedArrays(depth + 1)), "nest");
		assertRejectedAndNothingWritten(() -> fixture().queue().enqueue("work", nestedObjects(depth + 1)), "nest");
		assertRejectedAndNothingWritten(() -> fixture().queue().enqueue("work", nestedArrays(5000)), "");
		assertThat(fixture().count("1 = 1")).isEqualTo(2);
	}

	@Test
	default void payloadExactlyAtTheSizeLimitIsStoredAndOneByteOverIsRejected() {
		int limit = fixture().codec().maxPayloadBytes();
		// Counted in bytes of UTF-8, not in characters: two bytes each, plus two quotes.
		String atLimit = "\u00e9".repeat((limit - 2) / 2) + "x".repeat((limit - 2) % 2);
		long id = fixture().queue().enqueue("work", atLimit);
		assertThat(fixture().job(id).payload()).isEqualTo("\"" + atLimit + "\"");
		assertRejectedAndNothingWritten(() -> fixture().queue().enqueue("work", atLimit + "x"),
				"over the limit of " + limit);
		assertThat(fixture().count("1 = 1")).isEqualTo(1);
	}

	@Test
	default void resultWithANulCharacterIsNotStoredAndTheJobSucceedsOnce() {
		AtomicInteger calls = new AtomicInteger();
		handler("nul-result", (payload, context) -> {
			calls.incrementAndGet();
			return Map.of("s", "a\u0000b");
		});
		transactionalHandler("nul-result-tx", (payload, context) -> {
			calls.incrementAndGet();
			return "\u0000";
		});
		handler("fine", (payload, context) -> "ok");
		fixture().startManager((s) -> s);
		// One batch, so that on PostgreSQL one statement completes all three.
		List<Long> ids = fixture().queue()
			.enqueueAll(List.of(Job.of("nul-result", null), Job.of("fine", null), Job.of("nul-result-tx", null)));
		ids.forEach((id) -> awaitStatus(id, JobStatus.SUCCEEDED));
		for (long id : List.of(ids.get(0), ids.get(2))) {
			JobRecord job = fixture().job(id);
			assertThat(job.result()).isNull();
			assertThat(job.lastError()).startsWith("Result not stored:").contains("NUL");
			assertThat(job.attempts()).isEqualTo(1);
		}
		assertThat(fixture().job(ids.get(1)).result()).isEqualTo("\"ok\"");
		assertThat(fixture().job(ids.get(1)).lastError()).isNull();
		assertThat(calls).hasValue(2);
	}

	@Test
	default void resultAtTheSizeLimitIsStoredAndALargerOneIsNotButTheJobSucceedsOnce() {
		AtomicInteger calls = new AtomicInteger();
		handler("sized", (payload, context) -> {
			calls.incrementAndGet();
			return "x".repeat(Integer.parseInt(payload) - 2);
		});
		fixture().startManager((s) -> s.resultMaxSize(64));
		long atLimit = fixture().queue().enqueue("sized", 64);
		long over = fixture().queue().enqueue("sized", 65);
		awaitStatus(atLimit, JobStatus.SUCCEEDED);
		awaitStatus(over, JobStatus.SUCCEEDED);
		assertThat(fixture().job(atLimit).result()).isEqualTo("\"" + "x".repeat(62) + "\"");
		assertThat(fixture().job(atLimit).lastError()).isNull();
		JobRecord job = fixture().job(over);
		assertThat(job.result()).isNull();
		assertThat(job.lastError()).startsWith("Result not stored:").contains("larger than");
		assertThat(job.attempts()).isEqualTo(1);
		assertThat(calls).hasValue(2);
	}

	@Test
	default void resultNestedDeeperThanTheDatabaseStoresIsNotStoredAndTheJobSucceedsOnce() {
		int depth = isolatedDatabase().dialect().maxJsonDepth();
		handler("nested", (payload, context) -> nestedArrays(Integer.parseInt(payload)));
		fixture().startManager((s) -> s);
		long deepest = fixture().queue().enqueue("nested", depth);
		long deeper = fixture().queue().enqueue("nested", depth + 1);
		awaitStatus(deepest, JobStatus.SUCCEEDED);
		awaitStatus(deeper, JobStatus.SUCCEEDED);
		assertThat(fixture().job(deepest).result().replace(" ", ""))
			.isEqualTo("[".repeat(depth) + "]".repeat(depth));
		JobRecord job = fixture().job(deeper);
		assertThat(job.result()).isNull();
		assertThat(job.lastError()).startsWith("Result not stored:").contains("nest");
		assertThat(job.attempts()).isEqualTo(1);
	}

	@Test
	default void errorWithANulCharacterIsRecordedWithTheCharacterReplaced() {
		handler("nul-error", (payload, context) -> {
			throw new IllegalStateException("bad\u0000message");
		});
		fixture().startManager((s) -> s);
		long id = fixture().queue().enqueue(Job.of("nul-error", null).maxAttempts(2));
		awaitStatus(id, JobStatus.FAILED);
		JobRecord job = fixture().job(id);
		assertThat(job.attempts()).isEqualTo(2);
		assertThat(job.lastError()).startsWith("java.lang.IllegalStateException: bad\ufffdmessage")
			.doesNotContain("\u0000");
		// Both the retry and the failure were written (a write that fails tells the listener nothing).
		await().atMost(WAIT)
			.until(() -> fixture().listener().events("finished nul-error").size() == 2);
		assertThat(fixture().listener().events("finished nul-error")).containsExactly("finished nul-error retried",
				"finished nul-error failed");
	}

	@Test
	default void giganticErrorIsRecordedCutToFourThousandCharacters() {
		handler("loud", (payload, context) -> {
			throw new IllegalStateException("x".repeat(1_000_000));
		});
		fixture().startManager((s) -> s);
		long id = fixture().queue().enqueue(Job.of("loud", null).maxAttempts(2));
		awaitStatus(id, JobStatus.FAILED);
		JobRecord job = fixture().job(id);
		assertThat(job.attempts()).isEqualTo(2);
		assertThat(job.lastError()).startsWith("java.lang.IllegalStateException: xxxxxxxx");
		assertThat(job.lastError().length()).isBetween(1000, 4000);
	}

	@Test
	default void namesWithQuotesSemicolonsOrLookAlikesAreRejectedAndNothingIsWritten() {
		List<String> names = List.of("o'brien", "mail\"", "mail;", "mail; DELETE FROM queue_job", "m\u0430il",
				"\uff4d\uff41\uff49\uff4c", "mail\u200b", "ma\u0131l", "mail\u0000", "mail ", "mail\n", "ma%l");
		for (String name : names) {
			assertRejectedAndNothingWritten(() -> fixture().queue().enqueue(Job.of("work", null).queue(name)),
					"Invalid queue name");
			assertRejectedAndNothingWritten(() -> fixture().queue().enqueue(name, null), "Invalid handler name");
		}
		assertThat(fixture().count("1 = 1")).isZero();
		long id = fixture().queue().enqueue(Job.of("mail.welcome-v2_x", null).queue("mail"));
		assertThat(fixture().job(id).queue()).isEqualTo("mail");
		assertThat(fixture().job(id).handler()).isEqualTo("mail.welcome-v2_x");
	}

	@Test
	default void namesOfTheLongestLengthAreStoredAndOneCharacterLongerAreRejected() {
		String queue = "q".repeat(63) + "Z";
		String handler = "h".repeat(127) + "Z";
		long id = fixture().queue().enqueue(Job.of(handler, null).queue(queue));
		assertThat(fixture().job(id).queue()).isEqualTo(queue);
		assertThat(fixture().job(id).handler()).isEqualTo(handler);
		assertThat(claim(queue, 1, handler)).extracting(JobRecord::id).containsExactly(id);
		assertRejectedAndNothingWritten(() -> fixture().queue().enqueue(Job.of("work", null).queue(queue + "Y")),
				"Invalid queue name");
		assertRejectedAndNothingWritten(() -> fixture().queue().enqueue(handler + "Y", null),
				"Invalid handler name");
	}

	@Test
	default void keysWithQuotesOrUnicodeAreStoredExactlyAndKeysWithANulCharacterAreRejected() {
		String quoted = "o'brien; DELETE FROM queue_job; --";
		String latin = "mail-\ud83d\ude00";
		String cyrillic = "m\u0430il-\ud83d\ude00";
		long first = fixture().queue().enqueue(Job.of("work", 1).uniqueKey(quoted).groupKey(latin));
		long second = fixture().queue().enqueue(Job.of("work", 2).uniqueKey(latin));
		long third = fixture().queue().enqueue(Job.of("work", 3).uniqueKey(cyrillic));
		assertThat(fixture().job(first).uniqueKey()).isEqualTo(quoted);
		assertThat(fixture().job(first).groupKey()).isEqualTo(latin);
		assertThat(fixture().job(second).uniqueKey()).isEqualTo(latin);
		assertThat(fixture().job(third).uniqueKey()).isEqualTo(cyrillic);
		assertThatThrownBy(() -> fixture().queue().enqueue(Job.of("work", 4).uniqueKey(quoted)))
			.isInstanceOf(DuplicateJobException.class);
		assertRejectedAndNothingWritten(() -> fixture().queue().enqueue(Job.of("work", 5).uniqueKey("a\u0000b")),
				"NUL");
		assertRejectedAndNothingWritten(() -> fixture().queue().enqueue(Job.of("work", 6).groupKey("a\u0000b")),
				"NUL");
		assertRejectedAndNothingWritten(
				() -> fixture().queue().enqueue(Job.of("work", 7).uniqueKey("k".repeat(Names.MAX_KEY_LENGTH + 1))),
				"1 to 255 characters");
		assertRejectedAndNothingWritten(() -> fixture().queue().enqueue(Job.of("work", 8).concurrencyKey("a\u0000b")),
				"NUL");
		assertRejectedAndNothingWritten(
				() -> fixture().queue().enqueue(Job.of("work", 9).concurrencyKey("")), "1 to 255 characters");
		assertRejectedAndNothingWritten(() -> fixture().queue()
			.enqueue(Job.of("work", 10).concurrencyKey("k".repeat(Names.MAX_KEY_LENGTH + 1))), "1 to 255 characters");
	}

	@Test
	default void negativeDelayIsRejectedWhenTheJobIsBuilt() {
		assertRejectedAndNothingWritten(
				() -> fixture().queue().enqueue(Job.of("work", null).delay(Duration.ofMillis(-1))),
				"delay must not be negative");
		assertRejectedAndNothingWritten(
				() -> fixture().queue().enqueue(Job.of("work", null).delay(Duration.ofDays(-365))),
				"delay must not be negative");
		long now = fixture().queue().enqueue(Job.of("work", null).delay(Duration.ZERO));
		assertThat(claim("default", 10, "work")).extracting(JobRecord::id).containsExactly(now);
	}

	@Test
	default void delayOverAHundredYearsIsRejectedAndAHundredYearsIsStoredExactly() {
		assertRejectedAndNothingWritten(
				() -> fixture().queue().enqueue(Job.of("work", null).delay(Job.MAX_DELAY.plusMillis(1))),
				"delay must be at most 36525 days");
		assertRejectedAndNothingWritten(
				() -> fixture().queue().enqueue(Job.of("work", null).delay(Duration.ofSeconds(Long.MAX_VALUE))),
				"delay must be at most 36525 days");
		long id = fixture().queue().enqueue(Job.of("work", null).delay(Job.MAX_DELAY));
		JobRecord job = fixture().job(id);
		assertThat(Duration.between(job.createdAt(), job.runAt())).isEqualTo(Job.MAX_DELAY);
		assertThat(claim("default", 10, "work")).isEmpty();
	}

	@Test
	default void runAtInTheYear2500IsStoredExactlyAndNotClaimed() {
		Instant runAt = Instant.parse("2500-12-31T23:59:59.999Z");
		long id = fixture().queue().enqueue(Job.of("work", null).runAt(runAt));
		assertThat(fixture().job(id).runAt()).isEqualTo(runAt);
		assertThat(claim("default", 10, "work")).isEmpty();
		assertThat(fixture().status(id)).isEqualTo(JobStatus.QUEUED);
		assertThat(fixture().store().dueBacklog()).isEmpty();
	}

	@Test
	default void runAtBefore1970IsStoredExactlyAndDueAtOnce() {
		Instant justBefore = Instant.parse("1969-12-31T23:59:59.999Z");
		Instant longBefore = Instant.parse("1901-12-13T20:45:51.001Z");
		long now = fixture().queue().enqueue(Job.of("old", null));
		long first = fixture().queue().enqueue(Job.of("old", null).runAt(justBefore));
		long second = fixture().queue().enqueue(Job.of("old", null).runAt(longBefore));
		assertThat(fixture().job(first).runAt()).isEqualTo(justBefore);
		assertThat(fixture().job(second).runAt()).isEqualTo(longBefore);
		// Due for longest, so first in line.
		assertThat(claim("default", 10, "old")).extracting(JobRecord::id).containsExactly(second, first, now);
		handler("work", (payload, context) -> "ran");
		fixture().startManager((s) -> s);
		long id = fixture().queue().enqueue(Job.of("work", null).runAt(justBefore));
		awaitStatus(id, JobStatus.SUCCEEDED);
		assertThat(fixture().job(id).result()).isEqualTo("\"ran\"");
		assertThat(fixture().job(id).runAt()).isEqualTo(justBefore);
	}

	@Test
	default void runAtOutsideTheYears1000To9999IsRejectedAndTheEndsOfTheRangeAreStoredExactly() {
		for (Instant outside : List.of(Job.LATEST_RUN_AT.plusMillis(1), Instant.parse("+10000-01-01T00:00:00Z"),
				Instant.MAX, Job.EARLIEST_RUN_AT.minusMillis(1), Instant.parse("-0001-01-01T00:00:00Z"), Instant.MIN)) {
			assertRejectedAndNothingWritten(() -> fixture().queue().enqueue(Job.of("work", null).runAt(outside)),
					"runAt must be from 1000-01-01T00:00:00Z to 9999-12-31T23:59:59.999Z");
		}
		long latest = fixture().queue().enqueue(Job.of("work", null).runAt(Job.LATEST_RUN_AT));
		long earliest = fixture().queue().enqueue(Job.of("work", null).runAt(Job.EARLIEST_RUN_AT));
		assertThat(fixture().job(latest).runAt()).isEqualTo(Job.LATEST_RUN_AT);
		assertThat(fixture().job(earliest).runAt()).isEqualTo(Job.EARLIEST_RUN_AT);
		assertThat(claim("default", 10, "work")).extracting(JobRecord::id).containsExactly(earliest);
	}

	@Test
	default void priorityMinAndMaxValueAreStoredExactlyAndOrderedAroundZero() {
		long zero = fixture().queue().enqueue(Job.of("work", 1));
		long min = fixture().queue().enqueue(Job.of("work", 2).priority(Integer.MIN_VALUE));
		long minusOne = fixture().queue().enqueue(Job.of("work", 3).priority(-1));
		long max = fixture().queue().enqueue(Job.of("work", 4).priority(Integer.MAX_VALUE));
		long one = fixture().queue().enqueue(Job.of("work", 5).priority(1));
		assertThat(fixture().job(min).priority()).isEqualTo(Integer.MIN_VALUE);
		assertThat(fixture().job(max).priority()).isEqualTo(Integer.MAX_VALUE);
		assertThat(claim("default", 1, "work")).extracting(JobRecord::id).containsExactly(max);
		assertThat(claim("default", 10, "work")).extracting(JobRecord::id).containsExactly(one, zero, minusOne, min);
	}

	@Test
	default void maxAttemptsZeroIsRejectedAndOneMeansASingleAttempt() {
		assertRejectedAndNothingWritten(() -> fixture().queue().enqueue(Job.of("once", null).maxAttempts(0)),
				"maxAttempts must be at least 1");
		assertRejectedAndNothingWritten(
				() -> fixture().queue().enqueue(Job.of("once", null).maxAttempts(Integer.MIN_VALUE)),
				"maxAttempts must be at least 1");
		assertThatThrownBy(() -> new HandlerDefinition("once", "default", 0, null, Set.of(), (payload, context) -> null,
				"once"))
			.isInstanceOf(IllegalArgumentException.class)
			.hasMessageContaining("must be at least 1");
		AtomicInteger calls = new AtomicInteger();
		handler("once", (payload, context) -> {
			throw new IllegalStateException("attempt " + calls.incrementAndGet());
		});
		fixture().startManager((s) -> s);
		long id = fixture().queue().enqueue(Job.of("once", null).maxAttempts(1));
		awaitStatus(id, JobStatus.FAILED);
		JobRecord job = fixture().job(id);
		assertThat(job.attempts()).isEqualTo(1);
		assertThat(job.maxAttempts()).isEqualTo(1);
		assertThat(job.lastError()).startsWith("java.lang.IllegalStateException: attempt 1");
		assertThat(calls).hasValue(1);
	}

}
