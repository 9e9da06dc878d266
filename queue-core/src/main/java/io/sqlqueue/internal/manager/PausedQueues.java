package io.sqlqueue.internal.manager;

import java.time.Duration;
import java.util.Set;
import java.util.function.Supplier;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReentrantReadWriteLock;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The queues paused across the cluster, as this instance last read them: the poll loop reads
 * them again when they are older than a quarter of the poll interval (one small query per
 * poll, never one per claim), and every claim looks them up in memory. So a pause stops this
 * instance's claims within about a poll interval of its commit, and costs the claim path one
 * read of a volatile field.
 * <p>
 * A read that fails (the database is away; an older schema without {@code queue_paused},
 * where the queue's migrations are switched off) keeps the set last read: a failed read
 * neither pauses nor resumes anything. The first failure is logged as a warning, the ones
 * after it at debug until a read works again.
 * <p>
 * A claim holds the {@link #claimGate() gate} shared from its look at the set to the end of
 * its statement, and a changed set is put in place holding it alone. So when {@link #refresh()}
 * returns, no claim that saw the old set is still under way: a job enqueued after a pause
 * returned on this instance is never claimed here (without the gate, a claim that looked just
 * before the pause could run its statement just after that enqueue).
 */
final class PausedQueues {

	private static final Logger logger = LoggerFactory.getLogger(PausedQueues.class);

	/** Reads the paused queues' names from the database ({@code ClusterStore#pausedQueues}). */
	private final Supplier<Set<String>> reader;

	private final long maxAgeNanos;

	private volatile Set<String> paused = Set.of();

	/** When the set was last read (System.nanoTime), or read at all. */
	private volatile long readAt;

	private volatile boolean read;

	private boolean failing;

	private final ReentrantReadWriteLock gate = new ReentrantReadWriteLock();

	PausedQueues(Supplier<Set<String>> reader, Duration pollInterval) {
		this.reader = reader;
		this.maxAgeNanos = pollInterval.toNanos() / 4;
	}

	/**
	 * Held shared by a claim from its {@link #contains} to its statement's end; an unchanged
	 * set never takes it alone, so claims only wait while a pause or resume is put in place.
	 */
	Lock claimGate() {
		return this.gate.readLock();
	}

	/** Whether the queue is paused, as last read. */
	boolean contains(String queue) {
		return this.paused.contains(queue);
	}

	/** The paused queues, as last read. */
	Set<String> current() {
		return this.paused;
	}

	/**
	 * Reads the set again if it is older than a quarter of the poll interval; returns whether
	 * a queue was paused or resumed since the last read.
	 */
	boolean refreshIfStale() {
		if (!this.read || System.nanoTime() - this.readAt >= this.maxAgeNanos) {
			return refresh();
		}
		return false;
	}

	/**
	 * Reads the set now (an operator paused or resumed a queue on this instance); returns
	 * whether it changed.
	 */
	synchronized boolean refresh() {
		try {
			Set<String> read = Set.copyOf(this.reader.get());
			boolean changed = !read.equals(this.paused);
			if (changed) {
				this.gate.writeLock().lock();
				try {
					this.paused = read;
				}
				finally {
					this.gate.writeLock().unlock();
				}
			}
			this.readAt = System.nanoTime();
			this.read = true;
			if (this.failing) {
				logger.info("sqlqueue reads its paused queues again");
				this.failing = false;
			}
			return changed;
		}
		catch (RuntimeException ex) {
			if (!this.failing) {
				logger.warn("sqlqueue could not read its paused queues; it keeps those it read last ({})", this.paused,
						ex);
				this.failing = true;
			}
			else {
				logger.debug("sqlqueue could not read its paused queues", ex);
			}
			return false;
		}
	}

}
