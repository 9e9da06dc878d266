/**
 * Operator actions on the queue — retry, retry the failed jobs of a queue or handler,
 * cancel, trigger, pause or resume a schedule, set or remove a limit — in one place
 * ({@link io.sqlqueue.admin.QueueAdmin}), which the Actuator endpoint, the dashboard and
 * application code call alike, each refusal with one reason and one message.
 */
@NullMarked
package io.sqlqueue.admin;

import org.jspecify.annotations.NullMarked;
