package io.sqlqueue.internal.store;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * What the queue announces on its notification channel, where the database has one
 * (PostgreSQL's {@code NOTIFY}, heard by {@code store.postgresql.PostgresNotifications}): one
 * channel carries all three kinds, a payload being a queue name (new work), {@link #FINISHED}
 * and job ids, or {@link #CANCEL} and a job id (queue names have no colon).
 */
public final class NotifyPayloads {

	/** The prefix of a payload of finished jobs' ids. */
	public static final String FINISHED = "done:";

	/** The prefix of a payload that asks for the cancel of a running job. */
	public static final String CANCEL = "cancel:";

	/** PostgreSQL refuses payloads of 8000 bytes and more. */
	public static final int MAX_PAYLOAD = 7900;

	private NotifyPayloads() {
	}

	/** The payloads that announce these finished jobs: their ids, as few as fit PostgreSQL's limit. */
	public static List<String> finished(Collection<Long> ids) {
		List<String> payloads = new ArrayList<>();
		StringBuilder payload = new StringBuilder(FINISHED);
		for (long id : ids) {
			String next = Long.toString(id);
			if (payload.length() > FINISHED.length() && payload.length() + 1 + next.length() > MAX_PAYLOAD) {
				payloads.add(payload.toString());
				payload.setLength(FINISHED.length());
			}
			if (payload.length() > FINISHED.length()) {
				payload.append(',');
			}
			payload.append(next);
		}
		payloads.add(payload.toString());
		return payloads;
	}

	/** The payload that asks the instance holding this running job to stop it. */
	public static String cancel(long id) {
		return CANCEL + id;
	}

	/** The channel of the queue table in this schema: one per table, so schemas do not wake each other. */
	public static String channel(@Nullable String schema) {
		return (schema != null) ? "sqlqueue_" + schema : "sqlqueue";
	}

}
