package io.sqlqueue.internal.store;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.TreeSet;

/**
 * Ids to bind as {@code IN (?, …)} lists, however many: in ascending order (so rows are
 * locked in the order the queue's other writes lock them), at most {@link #MAX} per
 * statement, far below the limits on parameters (65,535 on PostgreSQL, 32,766 by default on
 * SQLite), and each list padded to a power of two by repeating its last id (which
 * changes no answer of an {@code IN}), so that ten statement texts serve lists of every
 * length.
 */
final class IdChunks {

	/** The most ids one statement binds. */
	static final int MAX = 512;

	private IdChunks() {
	}

	/** The distinct ids, ascending, as the parameters of one statement per chunk. */
	static List<Object[]> of(Collection<Long> ids) {
		List<Long> sorted = new ArrayList<>(new TreeSet<>(ids));
		List<Object[]> chunks = new ArrayList<>((sorted.size() + MAX - 1) / MAX);
		for (int from = 0; from < sorted.size(); from += MAX) {
			List<Long> chunk = sorted.subList(from, Math.min(sorted.size(), from + MAX));
			Object[] padded = new Object[padded(chunk.size())];
			for (int i = 0; i < padded.length; i++) {
				padded[i] = chunk.get(Math.min(i, chunk.size() - 1));
			}
			chunks.add(padded);
		}
		return chunks;
	}

	/** {@code count} parameter markers, as an {@code IN (…)} list binds them. */
	static String placeholders(int count) {
		return String.join(", ", Collections.nCopies(count, "?"));
	}

	/** These ids as the parameters of one statement; refused when they need more than one. */
	static Object[] one(Collection<Long> ids) {
		List<Object[]> chunks = of(ids);
		if (chunks.size() > 1) {
			throw new IllegalArgumentException("At most " + MAX + " ids at once, not " + ids.size());
		}
		return chunks.isEmpty() ? new Object[0] : chunks.get(0);
	}

	/** The power of two at or above {@code count} (at least 1). */
	static int padded(int count) {
		return (count <= 1) ? 1 : Integer.highestOneBit(count - 1) << 1;
	}

}
