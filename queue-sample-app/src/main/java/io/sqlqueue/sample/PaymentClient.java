package io.sqlqueue.sample;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.jdbc.support.GeneratedKeyHolder;
import org.springframework.jdbc.support.KeyHolder;
import org.springframework.stereotype.Component;

/**
 * A fake payment provider: a charge is a row in {@code payment_charge}, with no key that would
 * stop a second one. So every call shows, and a job that charged twice would have two rows: the
 * {@code charge} step of {@link OrderFulfilment} is what keeps it at one. (The provider answers
 * later, through {@code POST /orders/{jobId}/payment-callback}.)
 */
@Component
public class PaymentClient {

	private final JdbcClient jdbc;

	public PaymentClient(JdbcClient jdbc) {
		this.jdbc = jdbc;
	}

	/** Asks for a payment; returns the provider's reference of the charge. */
	public String charge(long jobId, String item, long cents) {
		KeyHolder key = new GeneratedKeyHolder();
		this.jdbc.sql("INSERT INTO payment_charge (job_id, item, cents) VALUES (:jobId, :item, :cents)")
			.param("jobId", jobId)
			.param("item", item)
			.param("cents", cents)
			.update(key, "id");
		return "psp-" + key.getKeyAs(Number.class).longValue();
	}

	/** How many times a job asked for a payment. */
	public long charges(long jobId) {
		return this.jdbc.sql("SELECT COUNT(*) FROM payment_charge WHERE job_id = :jobId")
			.param("jobId", jobId)
			.query(Long.class)
			.single();
	}

}
