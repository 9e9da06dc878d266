package io.sqlqueue.internal.manager;

import java.time.Duration;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.Lock;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The gate between a claim and a pause: once a refresh that read a changed set returns, no
 * claim that looked at the old set is still under way (the interleaving that let a job
 * enqueued after a pause be claimed, seen once in CI on PostgreSQL's compare-and-set claims).
 */
class PausedQueuesTests {

	private final AtomicReference<Set<String>> stored = new AtomicReference<>(Set.of());

	private final PausedQueues paused = new PausedQueues(this.stored::get, Duration.ofSeconds(1));

	@Test
	void aChangedSetWaitsForTheClaimThatLookedAtTheOldOne() throws Exception {
		this.paused.refresh();
		Lock claim = this.paused.claimGate();
		claim.lock();
		CompletableFuture<Void> pause;
		try {
			assertThat(this.paused.contains("emails")).isFalse();
			this.stored.set(Set.of("emails"));
			pause = CompletableFuture.runAsync(this.paused::refresh);
			Thread.sleep(200);
			// The claim's statement is still running: the pause has not returned, and the claim
			// still sees the set it looked at.
			assertThat(pause).isNotDone();
			assertThat(this.paused.contains("emails")).isFalse();
		}
		finally {
			claim.unlock();
		}
		pause.get(10, TimeUnit.SECONDS);
		assertThat(this.paused.contains("emails")).isTrue();
		assertThat(this.paused.current()).containsExactly("emails");
	}

	@Test
	void anUnchangedSetNeverWaitsForClaims() throws Exception {
		this.stored.set(Set.of("emails"));
		this.paused.refresh();
		Lock claim = this.paused.claimGate();
		claim.lock();
		try {
			CompletableFuture.runAsync(this.paused::refresh).get(10, TimeUnit.SECONDS);
		}
		finally {
			claim.unlock();
		}
		assertThat(this.paused.current()).containsExactly("emails");
	}

	@Test
	void aFailedReadNeitherPausesNorResumes() {
		AtomicReference<RuntimeException> failure = new AtomicReference<>();
		PausedQueues readOrFail = new PausedQueues(() -> {
			if (failure.get() != null) {
				throw failure.get();
			}
			return this.stored.get();
		}, Duration.ofSeconds(1));
		this.stored.set(Set.of("emails"));
		readOrFail.refresh();
		failure.set(new IllegalStateException("database away"));
		this.stored.set(Set.of());
		readOrFail.refresh();
		assertThat(readOrFail.current()).containsExactly("emails");
		failure.set(null);
		readOrFail.refresh();
		assertThat(readOrFail.current()).isEmpty();
	}

}
