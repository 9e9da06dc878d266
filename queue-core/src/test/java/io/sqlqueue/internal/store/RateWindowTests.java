package io.sqlqueue.internal.store;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

import io.sqlqueue.flow.RateLimit;

class RateWindowTests {

	private static final long PERIOD = 1000;

	/**
	 * A backlog claimed every millisecond, taking all the room there is: no window ever holds
	 * more than the limit, and after the first each holds exactly the limit (for limits below one
	 * start per millisecond of the period: above, the last millisecond of the previous window still
	 * counts a start or more).
	 */
	@Test
	void aBacklogStartsTheLimitPerWindowNeverMore() {
		for (int limit : new int[] { 1, 2, 3, 7, 100, 999 }) {
			RateLimit rate = new RateLimit(limit, Duration.ofMillis(PERIOD));
			RateWindow window = RateWindow.EMPTY;
			Map<Long, Integer> startsPerWindow = new HashMap<>();
			for (long now = 5 * PERIOD; now < 25 * PERIOD; now++) {
				int room = window.room(rate, now);
				if (room > 0) {
					window = window.plus(room, now, PERIOD);
					startsPerWindow.merge(now / PERIOD, room, Integer::sum);
				}
			}
			assertThat(startsPerWindow.values()).as("limit %d", limit).allSatisfy((starts) -> assertThat(starts).isEqualTo(limit));
			assertThat(startsPerWindow).hasSize(20);
		}
	}

	/**
	 * The bound docs/flow-control.md gives for a span of one period that straddles two windows: after an
	 * idle spell, a backlog that arrives in the last moment of a window starts the limit at once,
	 * and the sliding window, taking those starts as spread over their window, lets the next
	 * window start up to the limit again within a period of them; never more.
	 */
	@Test
	void aSpanOfOnePeriodAcrossTwoWindowsHoldsUnderTwiceTheLimit() {
		for (int limit : new int[] { 1, 2, 10, 100 }) {
			RateLimit rate = new RateLimit(limit, Duration.ofMillis(PERIOD));
			int most = 0;
			for (long arrival = 5 * PERIOD; arrival < 6 * PERIOD; arrival += 7) {
				RateWindow window = RateWindow.EMPTY;
				java.util.List<Long> starts = new java.util.ArrayList<>();
				for (long now = arrival; now < arrival + 3 * PERIOD; now++) {
					int room = window.room(rate, now);
					window = window.plus(room, now, PERIOD);
					for (int i = 0; i < room; i++) {
						starts.add(now);
					}
				}
				for (int first = 0; first < starts.size(); first++) {
					long from = starts.get(first);
					int inSpan = (int) starts.stream().filter((at) -> at >= from && at < from + PERIOD).count();
					most = Math.max(most, inSpan);
				}
			}
			assertThat(most).as("limit %d: at most twice, and the bound is reached", limit).isEqualTo(2 * limit);
		}
	}

	/** The backlog's starts are spread over the window, not bunched at its start. */
	@Test
	void aBacklogIsSpreadOverThePeriod() {
		RateLimit rate = new RateLimit(10, Duration.ofMillis(PERIOD));
		RateWindow window = new RateWindow(0, 10, 0);
		int firstHalf = 0;
		for (long now = PERIOD; now < 2 * PERIOD; now++) {
			int room = window.room(rate, now);
			window = window.plus(room, now, PERIOD);
			firstHalf += (now < PERIOD + PERIOD / 2) ? room : 0;
		}
		assertThat(window.starts()).isEqualTo(10);
		assertThat(firstHalf).isBetween(4, 6);
	}

	@Test
	void waitsExactlyUntilThereIsRoom() {
		Random random = new Random(42);
		int full = 0;
		for (int i = 0; i < 20_000; i++) {
			int limit = 1 + random.nextInt(20);
			long period = 10 + random.nextInt(5000);
			RateLimit rate = new RateLimit(limit, Duration.ofMillis(period));
			long start = period * (1 + random.nextInt(1000));
			RateWindow window = new RateWindow(start, random.nextInt(limit + 1), random.nextInt(limit + 1));
			long now = start + random.nextInt((int) period);
			if (window.room(rate, now) > 0) {
				continue;
			}
			full++;
			long wait = window.millisUntilRoom(rate, now);
			assertThat(window.room(rate, now + wait)).as("%s at %d, limit %s", window, now, rate).isPositive();
			if (wait > 1) {
				assertThat(window.room(rate, now + wait - 1)).as("%s at %d, limit %s", window, now, rate).isZero();
			}
		}
		assertThat(full).as("cases with a full window, which the loop checks").isGreaterThan(1_000);
	}

	@Test
	void rollsOnAndForgetsOldWindows() {
		RateWindow window = new RateWindow(2000, 4, 1);
		assertThat(window.at(2999, PERIOD)).isSameAs(window);
		assertThat(window.at(3000, PERIOD)).isEqualTo(new RateWindow(3000, 0, 4));
		assertThat(window.at(4000, PERIOD)).isEqualTo(new RateWindow(4000, 0, 0));
		assertThat(window.expiresAt(PERIOD)).isEqualTo(4000);
	}

	/** A clock reading taken before the window that was written (a claim that waited for the lock) counts as its start. */
	@Test
	void anEarlierClockReadingNeverResetsTheCount() {
		RateLimit rate = new RateLimit(5, Duration.ofMillis(PERIOD));
		RateWindow full = new RateWindow(3000, 5, 0);
		assertThat(full.room(rate, 2999)).isZero();
		assertThat(full.plus(1, 2990, PERIOD)).isEqualTo(new RateWindow(3000, 6, 0));
	}

}
