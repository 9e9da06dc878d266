package io.sqlqueue.sample;

/** The payload of a {@code mail.welcome} job: whom to welcome. Stored as JSON in the job. */
public record WelcomeMail(long userId, String email, String name) {

}
