package io.sqlqueue.internal.store;

import java.util.ArrayList;
import java.util.List;
import java.util.function.ToIntFunction;

import org.jspecify.annotations.Nullable;

/**
 * Rows to write with one multi-row statement each (jobs to insert, successes to record): at
 * most {@link #MAX_ROWS} per statement, and no more than {@link #MAX_CHARS} characters of
 * bound text unless one row alone has more. A job's payload and a result may each be 1 MB, and
 * MariaDB refuses a statement larger than {@code max_allowed_packet} (16 MiB by default, MySQL's
 * 64 MiB): a chunk's text, at most three bytes of UTF-8 per character and escaped, stays below
 * it wherever one row's statement does, as each row once went alone.
 */
final class RowChunks {

	/** The most rows one statement writes: 14 parameters each for an insert, far below any limit. */
	static final int MAX_ROWS = 500;

	/** The most characters of bound text one statement carries, unless one row has more. */
	static final int MAX_CHARS = 1 << 20;

	private RowChunks() {
	}

	/**
	 * The rows in chunks, in their order.
	 * @param chars the characters of text a row binds (its strings' lengths)
	 */
	static <T> List<List<T>> of(List<T> rows, ToIntFunction<T> chars) {
		List<List<T>> chunks = new ArrayList<>();
		List<T> chunk = new ArrayList<>();
		long text = 0;
		for (T row : rows) {
			int size = chars.applyAsInt(row);
			if (!chunk.isEmpty() && (chunk.size() == MAX_ROWS || text + size > MAX_CHARS)) {
				chunks.add(chunk);
				chunk = new ArrayList<>();
				text = 0;
			}
			chunk.add(row);
			text += size;
		}
		if (!chunk.isEmpty()) {
			chunks.add(chunk);
		}
		return chunks;
	}

	/** The length of a bound string, 0 for {@code null}. */
	static int length(@Nullable String text) {
		return (text != null) ? text.length() : 0;
	}

}
