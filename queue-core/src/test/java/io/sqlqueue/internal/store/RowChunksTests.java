package io.sqlqueue.internal.store;

import java.util.Collections;
import java.util.List;
import java.util.stream.IntStream;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** Rows split into statements by count and by bound text, in order, each row once. */
class RowChunksTests {

	@Test
	void noRowsMakeNoStatement() {
		assertThat(RowChunks.of(List.<Integer>of(), (row) -> row)).isEmpty();
	}

	@Test
	void manySmallRowsAreCutEveryMaxRowsInTheirOrder() {
		List<Integer> rows = IntStream.range(0, 2 * RowChunks.MAX_ROWS + 1).boxed().toList();
		List<List<Integer>> chunks = RowChunks.of(rows, (row) -> 10);
		assertThat(chunks).extracting(List::size).containsExactly(RowChunks.MAX_ROWS, RowChunks.MAX_ROWS, 1);
		assertThat(chunks.stream().flatMap(List::stream).toList()).isEqualTo(rows);
	}

	@Test
	void rowsAreCutBeforeTheirTextPassesTheBudgetAndALargerRowGoesAlone() {
		int third = RowChunks.MAX_CHARS / 3;
		List<Integer> sizes = List.of(third, third, third, 1, RowChunks.MAX_CHARS + 1, 1, RowChunks.MAX_CHARS);
		List<List<Integer>> chunks = RowChunks.of(sizes, (row) -> row);
		assertThat(chunks).containsExactly(List.of(third, third, third, 1), List.of(RowChunks.MAX_CHARS + 1),
				List.of(1), List.of(RowChunks.MAX_CHARS));
	}

	@Test
	void nullTextCountsNothing() {
		assertThat(RowChunks.length(null)).isZero();
		assertThat(RowChunks.length(String.join("", Collections.nCopies(3, "é")))).isEqualTo(3);
	}

}
