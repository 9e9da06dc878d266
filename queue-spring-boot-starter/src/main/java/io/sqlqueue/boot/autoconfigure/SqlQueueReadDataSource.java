package io.sqlqueue.boot.autoconfigure;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.springframework.beans.factory.annotation.Qualifier;

/**
 * Qualifier of a read-only {@link javax.sql.DataSource} (a replica of the queue's database)
 * that the reads which tolerate staleness use: the dashboard's job list, search and counts
 * and its overview's counts, the Actuator endpoint's counts and searches, and
 * {@code QueueAdmin}'s {@code search}, {@code searchNewer} and {@code count}. Everything that
 * writes or decides stays on the queue's own DataSource. Declare it as Spring Boot's
 * {@code @FlywayDataSource} is declared, and not as a default candidate, so that the
 * application's own DataSource stays the one injected everywhere (and Boot's own, from
 * {@code spring.datasource.*}, is still made):
 *
 * <pre class="code">
 * &#64;Bean(defaultCandidate = false)
 * &#64;SqlQueueReadDataSource
 * &#64;ConfigurationProperties("app.replica")
 * HikariDataSource replica() {
 *     return DataSourceBuilder.create().type(HikariDataSource.class).build();
 * }
 * </pre>
 *
 * Without one, every read stays on the queue's own DataSource (docs/operations.md, "Read
 * replica").
 */
@Target({ ElementType.FIELD, ElementType.METHOD, ElementType.PARAMETER, ElementType.TYPE, ElementType.ANNOTATION_TYPE })
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Qualifier
public @interface SqlQueueReadDataSource {

}
