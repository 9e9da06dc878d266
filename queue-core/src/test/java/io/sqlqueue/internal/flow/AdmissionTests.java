package io.sqlqueue.internal.flow;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

import io.sqlqueue.flow.KeyLimit;
import io.sqlqueue.flow.Limit;
import io.sqlqueue.flow.QueueLimits;
import io.sqlqueue.flow.RateLimit;
import io.sqlqueue.internal.store.RateWindow;

class AdmissionTests {

	private static final long NOW = 1_000_500;

	@Test
	void theQueuesConcurrencyCapsTheClaim() {
		QueueLimits limits = new QueueLimits("q", Limit.concurrency(5), List.of(), 1);
		Admission admission = new Admission(limits, NOW, 3, Map.of(), null);
		assertThat(admission.room(10)).isEqualTo(2);
		assertThat(admission.heldByConcurrency()).as("nothing refused yet").isFalse();
		assertThat(admission.admit(null)).isTrue();
		assertThat(admission.admit("any")).isTrue();
		assertThat(admission.admit(null)).isFalse();
		assertThat(admission.heldByConcurrency()).isTrue();
		assertThat(admission.taken()).isEqualTo(2);
		assertThat(admission.millisUntilRateRoom()).isNull();
	}

	/**
	 * A start given back (the claim passed over the job, whose row another transaction held)
	 * is not written to the windows and frees its room for the next job; when to come back
	 * still counts it, or the room it left would call the next claim at once, again and again.
	 */
	@Test
	void aStartGivenBackIsNotCountedAndFreesItsRoom() {
		RateLimit perMinute = new RateLimit(1, Duration.ofMinutes(1));
		QueueLimits limits = new QueueLimits("q", Limit.rate(2, Duration.ofMinutes(1)),
				List.of(new KeyLimit("k", new Limit(null, perMinute))), 1);
		Admission admission = new Admission(limits, NOW, 0, Map.of(), null);
		assertThat(admission.admit("k")).isTrue();
		assertThat(admission.admit("k")).as("the key's one start is taken").isFalse();
		assertThat(admission.closedKeys()).contains("k");
		admission.withdraw("k");
		assertThat(admission.taken()).isZero();
		assertThat(admission.closedKeys()).as("its room is back").doesNotContain("k");
		assertThat(admission.windowsToWrite()).isEmpty();
		assertThat(admission.keysWithoutRateRoom()).isEmpty();
		assertThat(admission.millisUntilRateRoom()).as("as if it had started").isGreaterThan(1);
		assertThat(admission.admit("k")).as("the next job of the key").isTrue();
		assertThat(admission.windowsToWrite()).containsOnlyKeys(Admission.QUEUE_WINDOW, "k")
			.allSatisfy((key, window) -> assertThat(window.starts()).isEqualTo(1));
	}

	/** A claim capped by the queue's limits holds jobs back only when due jobs were left: an idle queue is not re-polled early. */
	@Test
	void aCappedClaimHoldsJobsBackOnlyWhenItSaysSo() {
		QueueLimits limits = new QueueLimits("q", new Limit(5, new RateLimit(1, Duration.ofMinutes(1))), List.of(), 1);
		Admission idle = new Admission(limits, NOW, 3, Map.of(), null);
		assertThat(idle.room(10)).isEqualTo(1);
		assertThat(idle.heldByConcurrency()).isFalse();
		assertThat(idle.millisUntilRateRoom()).isNull();
		Admission busy = new Admission(limits, NOW, 3, Map.of(), null);
		assertThat(busy.admit(null)).isTrue();
		busy.capped(10);
		assertThat(busy.heldByConcurrency()).as("the rate leaves less room than the concurrency").isFalse();
		assertThat(busy.millisUntilRateRoom()).isNotNull().isPositive();
	}

	/**
	 * The queue's running jobs are at their limit and its rate has room left, less than the
	 * claim wanted: the concurrency holds jobs back, the rate does not (it asked for the next
	 * claim in 1 ms, and the loop polled every 10 ms until a job ended).
	 */
	@Test
	void onlyTheLimitThatLeavesTheLeastRoomHoldsJobsBack() {
		RateLimit perMinute = new RateLimit(100, Duration.ofMinutes(1));
		QueueLimits limits = new QueueLimits("q", new Limit(5, perMinute), List.of(), 1);
		RateWindow window = new RateWindow(NOW - Math.floorMod(NOW, 60_000), 98, 0);
		Admission full = new Admission(limits, NOW, 5, Map.of(), window);
		assertThat(full.room(8)).isZero();
		full.capped(8);
		assertThat(full.heldByConcurrency()).isTrue();
		assertThat(full.millisUntilRateRoom()).as("the rate has room: no early poll").isNull();
		Admission rateBound = new Admission(limits, NOW, 1, Map.of(), window);
		assertThat(rateBound.room(8)).isEqualTo(2);
		assertThat(rateBound.admit(null)).isTrue();
		assertThat(rateBound.admit(null)).isTrue();
		rateBound.capped(8);
		assertThat(rateBound.heldByConcurrency()).isFalse();
		assertThat(rateBound.millisUntilRateRoom()).isNotNull().isGreaterThan(1);
	}

	@Test
	void eachKeyHasItsOwnCountAndAFullKeyHoldsNoOtherBack() {
		QueueLimits limits = new QueueLimits("q", null, List.of(new KeyLimit("customer:*", Limit.concurrency(2))), 1);
		Admission admission = new Admission(limits, NOW, 3, Map.of("customer:1", 2, "customer:2", 1), null);
		assertThat(admission.fullKeys()).containsExactly("customer:1");
		assertThat(admission.room(100)).isEqualTo(100);
		assertThat(admission.heldByConcurrency()).isFalse();
		assertThat(admission.admit("customer:1")).isFalse();
		assertThat(admission.admit("customer:2")).isTrue();
		assertThat(admission.admit("customer:2")).isFalse();
		assertThat(admission.admit("customer:3")).isTrue();
		assertThat(admission.admit("customer:3")).isTrue();
		assertThat(admission.admit("other")).isTrue();
		assertThat(admission.admit(null)).isTrue();
		assertThat(admission.closedKeys()).containsExactlyInAnyOrder("customer:1", "customer:2", "customer:3");
		assertThat(admission.heldByConcurrency()).isTrue();
		assertThat(admission.windowsToWrite()).isEmpty();
	}

	@Test
	void rateWindowsCountTheClaimsStartsAndSayWhenThereIsRoomAgain() {
		RateLimit perSecond = new RateLimit(3, Duration.ofSeconds(1));
		QueueLimits limits = new QueueLimits("q", new Limit(null, new RateLimit(10, Duration.ofSeconds(1))),
				List.of(new KeyLimit("api", new Limit(null, perSecond))), 1);
		Admission admission = new Admission(limits, NOW, 0, Map.of(), new RateWindow(1_000_000, 8, 0));
		assertThat(admission.room(5)).isEqualTo(2);
		admission.windowsRead(Map.of());
		assertThat(admission.admit("api")).isTrue();
		assertThat(admission.admit("free")).isTrue();
		assertThat(admission.admit("free")).isFalse();
		assertThat(admission.windowsToWrite()).containsExactly(Map.entry(Admission.QUEUE_WINDOW, new RateWindow(1_000_000, 10, 0)),
				Map.entry("api", new RateWindow(1_000_000, 1, 0)));
		assertThat(admission.isStored(Admission.QUEUE_WINDOW)).isTrue();
		assertThat(admission.isStored("api")).isFalse();
		// The queue's window is full; in the next one, 500 ms on, its 10 starts count whole at
		// first, 9 once a millisecond of it has passed.
		assertThat(admission.millisUntilRateRoom()).isEqualTo(501);
		assertThat(admission.heldByConcurrency()).isFalse();
	}

	@Test
	void countsTheDueJobsEachLimitHoldsBack() {
		QueueLimits limits = new QueueLimits("q", Limit.concurrency(10),
				List.of(new KeyLimit("customer:*", Limit.concurrency(2)),
						new KeyLimit("api", new Limit(null, new RateLimit(3, Duration.ofSeconds(1))))),
				1);
		Admission admission = new Admission(limits, NOW, 4, Map.of("customer:1", 2, "customer:2", 1), null);
		admission.windowsRead(Map.of("api", new RateWindow(1_000_000, 2, 0)));
		Map<String, Long> held = admission.heldBack(Map.of("customer:1", 5L, "customer:2", 4L, "api", 4L, "free", 2L), 3);
		// customer:1 holds back 5, customer:2 3 (room 1), api 3 (room 1); admitted 1 + 1 + 2 + 3 = 7 > room 6.
		assertThat(held).containsOnly(Map.entry(Admission.KEY_CONCURRENCY, 8L), Map.entry(Admission.KEY_RATE, 3L),
				Map.entry(Admission.QUEUE_CONCURRENCY, 1L));
		assertThat(admission.taken()).isZero();
	}

}
