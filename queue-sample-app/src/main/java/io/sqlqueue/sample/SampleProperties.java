package io.sqlqueue.sample;

import java.time.Duration;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * The sample application's own settings ({@code sample.*}).
 *
 * @param followupDelay how long after a sign-up the follow-up mail is sent
 * @param paymentTimeout how long an order waits for its payment callback before it fails
 */
@ConfigurationProperties("sample")
public record SampleProperties(@DefaultValue("30s") Duration followupDelay,
		@DefaultValue("1h") Duration paymentTimeout) {

}
