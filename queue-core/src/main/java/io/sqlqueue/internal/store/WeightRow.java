package io.sqlqueue.internal.store;

/** A stored weight of a fair queue's keys ({@link LimitRow#QUEUE}: the queue's own row, which makes it fair). */
public record WeightRow(String queue, String keyPattern, int weight, String source) {
}
