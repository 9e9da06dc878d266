package io.sqlqueue.sample;

import java.time.Duration;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * The sample application's own settings ({@code sample.*}).
 *
 * @param followupDelay how long after a sign-up the follow-up mail is sent
 */
@ConfigurationProperties("sample")
public record SampleProperties(@DefaultValue("30s") Duration followupDelay) {

}
