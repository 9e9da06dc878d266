package io.sqlqueue.test;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import javax.sql.DataSource;

import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Work done in a READ COMMITTED transaction (or at another level) on a thread and connection of its own, held
 * open until the test commits it: for replaying interleavings of transactions step by step.
 */
public final class OpenTransaction<T> implements AutoCloseable {

	private final CompletableFuture<T> result = new CompletableFuture<>();

	private final CompletableFuture<Void> ended = new CompletableFuture<>();

	private final CountDownLatch end = new CountDownLatch(1);

	private volatile boolean commit;

	private OpenTransaction() {
	}

	/** Begins the transaction and runs {@code work} in it; returns without waiting for the work. */
	public static <T> OpenTransaction<T> begin(DataSource dataSource, Supplier<T> work) {
		return begin(dataSource, TransactionDefinition.ISOLATION_READ_COMMITTED, work);
	}

	/** As {@link #begin(DataSource, Supplier)}, at another isolation level (a {@link TransactionDefinition} constant). */
	public static <T> OpenTransaction<T> begin(DataSource dataSource, int isolationLevel, Supplier<T> work) {
		OpenTransaction<T> open = new OpenTransaction<>();
		TransactionTemplate transaction = new TransactionTemplate(new DataSourceTransactionManager(dataSource));
		transaction.setIsolationLevel(isolationLevel);
		Thread thread = new Thread(() -> {
			try {
				transaction.executeWithoutResult((status) -> {
					open.result.complete(work.get());
					await(open.end);
					if (!open.commit) {
						status.setRollbackOnly();
					}
				});
				open.ended.complete(null);
			}
			catch (Throwable ex) {
				open.result.completeExceptionally(ex);
				open.ended.completeExceptionally(ex);
			}
		}, "open-transaction");
		thread.setDaemon(true);
		thread.start();
		return open;
	}

	/** What the work returned, once it has run (its transaction still open). */
	public T result() throws Exception {
		return this.result.get(30, TimeUnit.SECONDS);
	}

	/** Whether the work has run (false while it waits for a lock). */
	public boolean workDone() {
		return this.result.isDone();
	}

	public void commit() throws Exception {
		this.commit = true;
		this.end.countDown();
		this.ended.get(30, TimeUnit.SECONDS);
	}

	@Override
	public void close() throws Exception {
		this.end.countDown();
		try {
			this.ended.get(30, TimeUnit.SECONDS);
		}
		catch (Exception ex) {
			// Rolled back or failed: either way it holds nothing any more.
		}
	}

	private static void await(CountDownLatch latch) {
		try {
			if (!latch.await(60, TimeUnit.SECONDS)) {
				throw new IllegalStateException("The test never ended its open transaction");
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

}
