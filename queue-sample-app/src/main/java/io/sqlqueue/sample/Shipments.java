package io.sqlqueue.sample;

import java.sql.PreparedStatement;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.support.GeneratedKeyHolder;
import org.springframework.jdbc.support.KeyHolder;
import org.springframework.stereotype.Repository;

/**
 * Shipments: table {@code shipment}. Written through the application's {@link JdbcTemplate},
 * on the queue's {@code DataSource}: inside a transactional step the row commits with the
 * step's record, or not at all (docs/durable-steps.md#transactional-steps). So there is no
 * unique key here to catch a second shipment of a job: there cannot be one.
 */
@Repository
public class Shipments {

	private final JdbcTemplate jdbc;

	public Shipments(JdbcTemplate jdbc) {
		this.jdbc = jdbc;
	}

	/** Ships the item; returns the shipment's id. */
	public long ship(long jobId, String item, String paymentReference) {
		KeyHolder key = new GeneratedKeyHolder();
		this.jdbc.update((connection) -> {
			PreparedStatement insert = connection.prepareStatement(
					"INSERT INTO shipment (job_id, item, payment_reference) VALUES (?, ?, ?)", new String[] { "id" });
			insert.setLong(1, jobId);
			insert.setString(2, item);
			insert.setString(3, paymentReference);
			return insert;
		}, key);
		return key.getKeyAs(Number.class).longValue();
	}

	/** How many shipments a job made. */
	public long shipments(long jobId) {
		Long count = this.jdbc.queryForObject("SELECT COUNT(*) FROM shipment WHERE job_id = ?", Long.class, jobId);
		return (count != null) ? count : 0;
	}

}
