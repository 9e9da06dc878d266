package io.sqlqueue.admin;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

/**
 * An instance of the application that runs jobs, as its row of {@code queue_instance} last
 * said: each writes it every heartbeat interval and deletes it when it stops cleanly. One
 * that missed three beats is {@code gone} (crashed, frozen, or cut off from the database):
 * its jobs go back to the queue when their leases expire, and its row is deleted after
 * {@code sqlqueue.maintenance.instance-retention}.
 *
 * @param id its worker id, which running jobs carry as their lease owner
 * @param host its host name
 * @param pid its process id
 * @param version the sqlqueue version it runs
 * @param queues the queues it serves
 * @param concurrency its workers, over all its queues
 * @param busyWorkers its workers running a handler at its last beat
 * @param startedAt when it wrote its row first, on the database's clock
 * @param lastSeen when it last wrote its row, on the database's clock
 * @param sinceSeen how long ago that was, on the database's clock
 * @param gone whether it missed three beats
 */
public record QueueInstance(String id, String host, long pid, String version, List<String> queues, int concurrency,
		int busyWorkers, Instant startedAt, Instant lastSeen, Duration sinceSeen, boolean gone) {

	public QueueInstance {
		queues = List.copyOf(queues);
	}

}
