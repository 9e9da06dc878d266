package io.sqlqueue.sample;

import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.Optional;

import org.jspecify.annotations.Nullable;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.jdbc.support.GeneratedKeyHolder;
import org.springframework.jdbc.support.KeyHolder;
import org.springframework.stereotype.Repository;

/** Requested reports and their outcome: table {@code report}. */
@Repository
public class Reports {

	private final JdbcClient jdbc;

	public Reports(JdbcClient jdbc) {
		this.jdbc = jdbc;
	}

	public long insert(String kind, int failTimes) {
		KeyHolder key = new GeneratedKeyHolder();
		this.jdbc.sql("INSERT INTO report (kind, fail_times) VALUES (:kind, :failTimes)")
			.param("kind", kind)
			.param("failTimes", failTimes)
			.update(key, "id");
		return key.getKeyAs(Number.class).longValue();
	}

	public Optional<Report> find(long id) {
		return this.jdbc.sql("""
				SELECT id, kind, fail_times, runs, status, summary, error, created_at, finished_at
				FROM report WHERE id = :id""")
			.param("id", id)
			.query((rs, row) -> new Report(rs.getLong("id"), rs.getString("kind"), rs.getInt("fail_times"),
					rs.getInt("runs"), rs.getString("status"), rs.getString("summary"), rs.getString("error"),
					rs.getObject("created_at", OffsetDateTime.class).toInstant(),
					instant(rs.getObject("finished_at", OffsetDateTime.class))))
			.optional();
	}

	/** Counts one more run of the report's job and marks it running; returns the run's number, from 1. */
	public int startRun(long id) {
		this.jdbc.sql("UPDATE report SET runs = runs + 1, status = 'RUNNING', error = NULL WHERE id = :id")
			.param("id", id)
			.update();
		return this.jdbc.sql("SELECT runs FROM report WHERE id = :id").param("id", id).query(Integer.class).single();
	}

	public void ready(long id, String summary) {
		this.jdbc.sql("""
				UPDATE report SET status = 'READY', summary = :summary, finished_at = CURRENT_TIMESTAMP
				WHERE id = :id""")
			.param("id", id)
			.param("summary", summary)
			.update();
	}

	public void failed(long id, String error) {
		this.jdbc.sql("UPDATE report SET status = 'FAILED', error = :error, finished_at = CURRENT_TIMESTAMP WHERE id = :id")
			.param("id", id)
			.param("error", error)
			.update();
	}

	/** Sign-ups per day. */
	public List<ReportLine> signupsPerDay() {
		return this.jdbc.sql("""
				SELECT signup_day, COUNT(*) AS n FROM (SELECT CAST(created_at AS DATE) AS signup_day FROM app_user) days
				GROUP BY signup_day ORDER BY signup_day""")
			.query((rs, row) -> new ReportLine(rs.getString("signup_day"), rs.getLong("n")))
			.list();
	}

	/** Mails sent, per kind. */
	public List<ReportLine> mailsPerKind() {
		return this.jdbc.sql("SELECT kind, COUNT(*) AS n FROM sent_mail GROUP BY kind ORDER BY kind")
			.query((rs, row) -> new ReportLine(rs.getString("kind"), rs.getLong("n")))
			.list();
	}

	private static @Nullable Instant instant(@Nullable OffsetDateTime time) {
		return (time != null) ? time.toInstant() : null;
	}

	/** A row of {@code report}. */
	public record Report(long id, String kind, int failTimes, int runs, String status, @Nullable String summary,
			@Nullable String error, Instant createdAt, @Nullable Instant finishedAt) {

	}

	/** One line of a report: a key and a count. */
	public record ReportLine(String key, long count) {

	}

}
