package io.sqlqueue.internal.store.mariadb;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import com.zaxxer.hikari.HikariDataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.ResourceLock;

import org.springframework.jdbc.core.JdbcOperations;
import org.springframework.jdbc.core.JdbcTemplate;

import io.sqlqueue.admin.TableHealth;
import io.sqlqueue.test.TestDatabase;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The table health read by a user without the {@code PROCESS} privilege: refused once, then
 * not asked again (each refusal is a WARN line of the driver's). On the test Galera cluster,
 * whose users are the tests' own (the machine's MariaDB gets no new users).
 */
@ResourceLock(TestDatabase.GALERA_SERVER)
class MariaDbTableHealthWithoutProcessIT {

	@Test
	void readsThatNeedProcessAreRefusedOnceThenNotAskedAgain() throws Exception {
		try (TestDatabase.Isolated database = TestDatabase.GALERA.isolated()) {
			JdbcTemplate admin = new JdbcTemplate(database.dataSource());
			admin.execute("CREATE USER IF NOT EXISTS sq_noprocess@'127.0.0.1'");
			admin.execute("GRANT ALL ON " + database.schema() + ".* TO sq_noprocess@'127.0.0.1'");
			try (HikariDataSource limited = new HikariDataSource()) {
				limited.setJdbcUrl(database.url());
				limited.setUsername("sq_noprocess");
				limited.setMaximumPoolSize(1);
				List<String> asked = new CopyOnWriteArrayList<>();
				MariaDbTableHealth health = new MariaDbTableHealth(recording(new JdbcTemplate(limited), asked),
						database.schema());
				TableHealth first = health.read();
				TableHealth second = health.read();
				assertThat(first.notReported()).anyMatch((what) -> what.contains("PROCESS"));
				assertThat(second.notReported()).isEqualTo(first.notReported());
				assertThat(asked.stream().filter((sql) -> sql.contains("INNODB_")).count()).as(asked.toString())
					.isLessThanOrEqualTo(2);
			}
			finally {
				admin.execute("DROP USER IF EXISTS sq_noprocess@'127.0.0.1'");
			}
		}
	}

	/** {@code jdbc}, noting the text of each statement it is asked to run. */
	private static JdbcOperations recording(JdbcOperations jdbc, List<String> asked) {
		return (JdbcOperations) Proxy.newProxyInstance(JdbcOperations.class.getClassLoader(),
				new Class<?>[] { JdbcOperations.class }, (proxy, method, args) -> {
					if (args != null && args.length > 0 && args[0] instanceof String sql) {
						asked.add(sql);
					}
					try {
						return method.invoke(jdbc, args);
					}
					catch (InvocationTargetException ex) {
						throw ex.getCause();
					}
				});
	}

}
