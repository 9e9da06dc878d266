package io.sqlqueue.internal.manager;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class ErrorTextTests {

	@Test
	void nulCharactersBecomeReplacementCharacters() {
		assertThat(ErrorText.of("bad\u0000message")).isEqualTo("bad\uFFFDmessage");
	}

	@Test
	void longTextIsCutWithoutSplittingASurrogatePair() {
		String emoji = "\uD83D\uDE00";
		String text = "x".repeat(ErrorText.MAX_LENGTH - 1) + emoji;
		assertThat(ErrorText.of(text)).hasSize(ErrorText.MAX_LENGTH - 1).doesNotContain("\uD83D");
		assertThat(ErrorText.of("y".repeat(ErrorText.MAX_LENGTH + 10))).hasSize(ErrorText.MAX_LENGTH);
	}

	@Test
	void aGiganticMessageLeavesRoomForTheStack() {
		String description = ErrorText.describe(new IllegalStateException("m".repeat(1_000_000)));
		assertThat(description).hasSizeLessThanOrEqualTo(ErrorText.MAX_LENGTH).contains("\n\tat ");
	}

}
