package io.sqlqueue.sample;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.properties.ConfigurationPropertiesScan;

/**
 * A small application on the sqlqueue starter: sign-ups that send a welcome mail and a
 * delayed follow-up through the queue, reports that are built in the background (and fail
 * now and then, to show retries and the dead-letter state), and endpoints to inspect,
 * retry and cancel jobs. Runs on an embedded H2 database by default and on PostgreSQL
 * with the {@code postgres} profile.
 */
@SpringBootApplication
@ConfigurationPropertiesScan
public class SampleApplication {

	public static void main(String[] args) {
		SpringApplication.run(SampleApplication.class, args);
	}

}
