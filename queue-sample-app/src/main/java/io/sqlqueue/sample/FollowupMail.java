package io.sqlqueue.sample;

/** The payload of a {@code mail.followup} job, enqueued with a delay at sign-up. */
public record FollowupMail(long userId, String email, String name) {

}
