package io.sqlqueue.internal.manager;

import java.nio.charset.StandardCharsets;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.sqlqueue.PayloadCodec;
import io.sqlqueue.internal.store.Completion;
import io.sqlqueue.internal.store.JobStore;

/** A handler's result as the success to record, for the {@link AttemptRunner}. */
final class Results {

	private static final Logger logger = LoggerFactory.getLogger(Manager.class);

	private Results() {
	}

	/**
	 * The success to record, with the handler's result as JSON when the database can store
	 * it. A result it cannot (not encodable, too large, a NUL character, nested too deep) is
	 * left out and the job still succeeds — the handler did its work, and running it again
	 * would not change its result — with the reason in {@code last_error}.
	 */
	static Completion completion(PayloadCodec codec, JobStore store, int limit, Attempt attempt,
			@Nullable Object result) {
		String json;
		try {
			json = codec.encodeResult(result);
		}
		catch (RuntimeException ex) {
			return withoutResult(attempt, "it cannot be encoded as JSON: " + ex.getMessage());
		}
		if (json == null) {
			return new Completion(attempt.lease, null);
		}
		if (json.length() * 3L > limit) {
			int bytes = json.getBytes(StandardCharsets.UTF_8).length;
			if (bytes > limit) {
				return withoutResult(attempt, "it is " + bytes + " bytes of JSON, larger than the limit of " + limit
						+ " (sqlqueue.manager.result-max-size)");
			}
		}
		String problem = store.whyNotStorable(json);
		return (problem != null) ? withoutResult(attempt, problem) : new Completion(attempt.lease, json);
	}

	private static Completion withoutResult(Attempt attempt, String why) {
		logger.warn("The result of {} is not stored: {}", attempt, ErrorText.of(why));
		return new Completion(attempt.lease, null, ErrorText.of("Result not stored: " + why));
	}

}
