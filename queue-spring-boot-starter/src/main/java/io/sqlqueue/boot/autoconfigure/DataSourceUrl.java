package io.sqlqueue.boot.autoconfigure;

import javax.sql.DataSource;

import org.jspecify.annotations.Nullable;

import org.springframework.core.env.Environment;
import org.springframework.util.ClassUtils;

/**
 * The JDBC URL a data source connects to, for messages: HikariCP's (Spring Boot's default
 * pool) says it, else {@code spring.datasource.url}, else none.
 */
final class DataSourceUrl {

	private static final boolean HIKARI = ClassUtils.isPresent("com.zaxxer.hikari.HikariDataSource",
			DataSourceUrl.class.getClassLoader());

	private DataSourceUrl() {
	}

	static @Nullable String of(DataSource dataSource, Environment environment) {
		if (HIKARI && dataSource instanceof com.zaxxer.hikari.HikariDataSource hikari && hikari.getJdbcUrl() != null) {
			return hikari.getJdbcUrl();
		}
		return environment.getProperty("spring.datasource.url");
	}

}
