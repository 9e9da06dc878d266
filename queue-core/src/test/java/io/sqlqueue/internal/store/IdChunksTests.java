package io.sqlqueue.internal.store;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.LongStream;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** Id lists of every length become a few statement shapes, in ascending order, each id bound once or padded. */
class IdChunksTests {

	@Test
	void noIdsMakeNoStatement() {
		assertThat(IdChunks.of(List.of())).isEmpty();
	}

	@Test
	void aListIsSortedDeduplicatedAndPaddedToAPowerOfTwoWithItsLastId() {
		List<Object[]> chunks = IdChunks.of(List.of(9L, 3L, 7L, 3L, 5L, 1L));
		assertThat(chunks).hasSize(1);
		assertThat(chunks.get(0)).containsExactly(1L, 3L, 5L, 7L, 9L, 9L, 9L, 9L);
		assertThat(IdChunks.of(List.of(4L)).get(0)).containsExactly(4L);
	}

	@Test
	void longListsAreSplitAtTheMostOneStatementBindsInAscendingOrder() {
		List<Long> ids = new ArrayList<>(LongStream.rangeClosed(1, 2 * IdChunks.MAX + 3).boxed().toList());
		java.util.Collections.shuffle(ids, new java.util.Random(15));
		List<Object[]> chunks = IdChunks.of(ids);
		assertThat(chunks).extracting((chunk) -> chunk.length).containsExactly(IdChunks.MAX, IdChunks.MAX, 4);
		Set<Object> seen = new LinkedHashSet<>();
		chunks.forEach((chunk) -> seen.addAll(Arrays.asList(chunk)));
		assertThat(seen).containsExactlyElementsOf(LongStream.rangeClosed(1, 2 * IdChunks.MAX + 3).boxed().toList());
	}

	@Test
	void everyLengthUpToTheMostTakesOneOfTenShapes() {
		Set<Integer> shapes = new java.util.TreeSet<>();
		for (int count = 1; count <= IdChunks.MAX; count++) {
			shapes.add(IdChunks.padded(count));
		}
		assertThat(shapes).containsExactly(1, 2, 4, 8, 16, 32, 64, 128, 256, 512);
	}

}
