package io.sqlqueue.internal.manager;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/** Settings a Manager cannot run with are refused when they are built, not at a claim. */
class ManagerSettingsTests {

	@Test
	void takesTheLargestBatchSizeAndPrefetch() {
		ManagerSettings settings = ManagerSettings.builder()
			.batchSize(ManagerSettings.MAX_BATCH_SIZE)
			.prefetch(ManagerSettings.MAX_BATCH_SIZE)
			.build();
		assertThat(settings.batchSize()).isEqualTo(4096);
		assertThat(settings.prefetch()).isEqualTo(4096);
	}

	@Test
	void refusesABatchSizeOrPrefetchAboveTheLargest() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> ManagerSettings.builder().batchSize(ManagerSettings.MAX_BATCH_SIZE + 1).build())
			.withMessageContaining("batchSize")
			.withMessageContaining("4096")
			.withMessageContaining("4097");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> ManagerSettings.builder().prefetch(40_000).build())
			.withMessageContaining("prefetch")
			.withMessageContaining("4096");
		assertThatIllegalArgumentException()
			.as("the prefetch defaults to the batch size, and is refused with it")
			.isThrownBy(() -> ManagerSettings.builder().batchSize(40_000).build())
			.withMessageContaining("batchSize");
	}

}
