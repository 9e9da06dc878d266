package io.sqlqueue.boot.autoconfigure;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.jspecify.annotations.Nullable;

import io.sqlqueue.Names;
import io.sqlqueue.boot.flow.LimitDeclarer;
import io.sqlqueue.boot.schedule.ScheduleDeclarer;
import io.sqlqueue.flow.Fairness;
import io.sqlqueue.flow.LimitDefinition;
import io.sqlqueue.internal.store.LimitRow;
import io.sqlqueue.schedule.ScheduleDefinition;

/**
 * The limits, fair turns and schedules that {@code sqlqueue.queues.*} and
 * {@code sqlqueue.schedules.*} declare, checked, with a message that names the property.
 */
final class PropertyDeclarations {

	private PropertyDeclarations() {
	}

	/** The limits of {@code sqlqueue.queues.*}, checked. */
	static List<LimitDefinition> limits(SqlQueueProperties properties) {
		List<LimitDefinition> limits = new ArrayList<>();
		properties.getQueues().forEach((queue, settings) -> {
			String prefix = "sqlqueue.queues." + queue;
			if (settings.getGlobalConcurrency() != null || settings.getRateLimit() != null) {
				limits.add(LimitDeclarer.definition("Limit of " + prefix, queue, LimitRow.QUEUE,
						settings.getGlobalConcurrency(), settings.getRateLimit()));
			}
			List<KeyLimitProperties> keyLimits = settings.getKeyLimits();
			for (int i = 0; i < keyLimits.size(); i++) {
				KeyLimitProperties keyLimit = keyLimits.get(i);
				String what = "Limit " + prefix + ".key-limits[" + i + "]";
				if (keyLimit.getKeys() == null || keyLimit.getKeys().isBlank()) {
					throw new IllegalStateException(what + " is invalid: it names no keys (a key, a prefix "
							+ "ending in '*', or '*')");
				}
				limits.add(LimitDeclarer.definition(what, queue, keyLimit.getKeys(), keyLimit.getConcurrency(),
						keyLimit.getRateLimit()));
			}
		});
		return limits;
	}

	/**
	 * The fair turns of {@code sqlqueue.queues.*}, checked, by queue; a queue whose
	 * {@code fair} is false maps to {@code null} (configured unfair, over any annotation).
	 */
	static Map<String, @Nullable Fairness> fairness(SqlQueueProperties properties) {
		Map<String, @Nullable Fairness> fairness = new LinkedHashMap<>();
		properties.getQueues().forEach((queue, settings) -> {
			String prefix = "sqlqueue.queues." + queue;
			Map<String, Integer> weights = settings.getFairWeights();
			if (Boolean.FALSE.equals(settings.getFair())) {
				if (!weights.isEmpty()) {
					throw new IllegalStateException(prefix + ".fair-weights is invalid: " + prefix
							+ ".fair is false");
				}
				fairness.put(queue, null);
			}
			else if (Boolean.TRUE.equals(settings.getFair()) || !weights.isEmpty()) {
				try {
					Names.requireQueue(queue);
					fairness.put(queue, new Fairness(weights));
				}
				catch (IllegalArgumentException ex) {
					throw new IllegalStateException(prefix + ".fair-weights is invalid: " + ex.getMessage(), ex);
				}
			}
		});
		return fairness;
	}

	/** The enabled schedules of {@code sqlqueue.schedules.*}, checked. */
	static List<ScheduleDefinition> schedules(SqlQueueProperties properties) {
		List<ScheduleDefinition> definitions = new ArrayList<>();
		properties.getSchedules().forEach((name, schedule) -> {
			if (schedule.isEnabled()) {
				definitions.add(ScheduleDeclarer.definition(
						"Schedule '" + name + "' (sqlqueue.schedules." + name + ")", name, schedule.getHandler(),
						schedule.getQueue(), schedule.getPayload(), schedule.getCron(), schedule.getZone(),
						schedule.getEvery(), schedule.getMisfire(), schedule.getOverlap()));
			}
		});
		return definitions;
	}

}
