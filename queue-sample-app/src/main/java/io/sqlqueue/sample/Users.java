package io.sqlqueue.sample;

import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.Optional;

import org.springframework.dao.DuplicateKeyException;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.jdbc.support.GeneratedKeyHolder;
import org.springframework.jdbc.support.KeyHolder;
import org.springframework.stereotype.Repository;

/** The application's users: table {@code app_user}. */
@Repository
public class Users {

	private final JdbcClient jdbc;

	public Users(JdbcClient jdbc) {
		this.jdbc = jdbc;
	}

	/**
	 * Inserts a user; returns its id.
	 * @throws DuplicateKeyException when the email is taken
	 */
	public long insert(String email, String name) {
		KeyHolder key = new GeneratedKeyHolder();
		this.jdbc.sql("INSERT INTO app_user (email, name) VALUES (:email, :name)")
			.param("email", email)
			.param("name", name)
			.update(key, "id");
		return key.getKeyAs(Number.class).longValue();
	}

	public Optional<User> find(long id) {
		return this.jdbc.sql("SELECT id, email, name, created_at FROM app_user WHERE id = :id")
			.param("id", id)
			.query((rs, row) -> new User(rs.getLong("id"), rs.getString("email"), rs.getString("name"),
					rs.getObject("created_at", OffsetDateTime.class).toInstant()))
			.optional();
	}

	/** A row of {@code app_user}. */
	public record User(long id, String email, String name, Instant createdAt) {

	}

}
