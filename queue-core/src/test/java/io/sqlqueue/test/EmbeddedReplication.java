package io.sqlqueue.test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;

/**
 * A PostgreSQL primary with a streaming hot standby, both from the embedded binaries (the
 * same as {@link EmbeddedPostgres}'s), each on a free port under {@code directory}: for
 * tests of what reads a replica, with real replication and a real lag. The machine's own
 * server is never touched (making a standby of it would need its replication settings).
 * <p>
 * The standby is a copy of the primary's freshly made, cleanly shut down cluster, started in
 * standby mode ({@code standby.signal}) and streaming from the primary
 * ({@code primary_conninfo}); initdb's {@code pg_hba.conf} already lets local replication
 * connections in. Both stop when the JVM ends.
 * <p>
 * For a failover ({@link #startSynchronous}): the standby is the primary's synchronous standby
 * ({@code synchronous_standby_names}), so a commit that waits for it is on both servers; the
 * primary can be killed ({@link #killPrimary}, {@code pg_ctl stop -m immediate}: no checkpoint,
 * every session cut, as a crash) and the standby promoted ({@link #promoteStandby}), as an HA
 * tool does.
 */
public final class EmbeddedReplication implements AutoCloseable {

	private final Path binaries;

	private final Path directory;

	private final int primaryPort;

	private final int standbyPort;

	private final boolean synchronous;

	private EmbeddedReplication(Path binaries, Path directory, int primaryPort, int standbyPort,
			boolean synchronous) {
		this.binaries = binaries;
		this.directory = directory;
		this.primaryPort = primaryPort;
		this.standbyPort = standbyPort;
		this.synchronous = synchronous;
	}

	/** A new primary and standby in {@code directory} (emptied first), both started. */
	public static EmbeddedReplication start(Path directory) {
		return start(directory, false);
	}

	/**
	 * As {@link #start(Path)}, the standby synchronous: a commit that waits for replication
	 * ({@code synchronous_commit} on, the default) returns once the standby has flushed it.
	 */
	public static EmbeddedReplication startSynchronous(Path directory) {
		return start(directory, true);
	}

	private static EmbeddedReplication start(Path directory, boolean synchronous) {
		try {
			Path binaries = EmbeddedPostgres.unpackBinaries();
			Path absolute = directory.toAbsolutePath();
			for (String server : List.of("primary", "standby")) {
				if (Files.exists(absolute.resolve(server).resolve("data/postmaster.pid"))) {
					try {
						EmbeddedPostgres.runIn(absolute, pgCtl(binaries, absolute.resolve(server), "stop"));
					}
					catch (RuntimeException ex) {
						// A left-over that was not running after all; its files go next.
					}
				}
			}
			EmbeddedPostgres.deleteRecursively(absolute);
			Files.createDirectories(absolute.resolve("primary"));
			Files.createDirectories(absolute.resolve("standby"));
			EmbeddedReplication replication = new EmbeddedReplication(binaries, absolute, EmbeddedPostgres.freePort(),
					EmbeddedPostgres.freePort(), synchronous);
			replication.makeClusters();
			Runtime.getRuntime().addShutdownHook(new Thread(replication::close, "embedded-replication-stop"));
			replication.startPrimary();
			replication.startStandby();
			return replication;
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not start an embedded primary and standby in " + directory, ex);
		}
	}

	/** The primary's database {@code postgres}, user {@code postgres}, no password. */
	public String primaryUrl() {
		return "jdbc:postgresql://127.0.0.1:" + this.primaryPort + "/postgres";
	}

	/** The standby's database {@code postgres}: read-only, the primary's data as far as it has replayed. */
	public String standbyUrl() {
		return "jdbc:postgresql://127.0.0.1:" + this.standbyPort + "/postgres";
	}

	/**
	 * Both servers, the primary first, with {@code targetServerType=primary}: pgjdbc connects to
	 * whichever of them is the primary now, and looks again after a second
	 * ({@code hostRecheckSeconds}, 10 by default) at a host it last found down or a standby.
	 */
	public String failoverUrl() {
		return "jdbc:postgresql://127.0.0.1:" + this.primaryPort + ",127.0.0.1:" + this.standbyPort
				+ "/postgres?targetServerType=primary&hostRecheckSeconds=1";
	}

	/** Kills the primary as a crash would: {@code pg_ctl stop -m immediate}, no checkpoint, every session cut. */
	public synchronized void killPrimary() {
		EmbeddedPostgres.runIn(this.directory.resolve("primary"), List.of(EmbeddedPostgres.bin(this.binaries, "pg_ctl"),
				"-D", data("primary").toString(), "-w", "-t", "60", "-m", "immediate", "stop"));
	}

	/** Promotes the standby to primary ({@code pg_ctl promote}), and returns once it takes writes. */
	public synchronized void promoteStandby() {
		EmbeddedPostgres.runIn(this.directory.resolve("standby"), List.of(EmbeddedPostgres.bin(this.binaries, "pg_ctl"),
				"-D", data("standby").toString(), "-w", "-t", "60", "promote"));
	}

	public synchronized void startPrimary() {
		start("primary");
	}

	public synchronized void stopPrimary() {
		stop("primary");
	}

	public synchronized void startStandby() {
		start("standby");
	}

	public synchronized void stopStandby() {
		stop("standby");
	}

	/** Stops both servers (the standby first); their files stay until the next start. */
	@Override
	public synchronized void close() {
		stop("standby");
		stop("primary");
	}

	private void makeClusters() throws IOException {
		Path primary = data("primary");
		EmbeddedPostgres.initdb(this.binaries, this.directory, primary);
		append(primary, """

				port = %d
				listen_addresses = '127.0.0.1'
				unix_socket_directories = ''
				fsync = off
				wal_level = replica
				wal_keep_size = '256MB'
				""".formatted(this.primaryPort));
		// A copy of the cleanly shut down cluster: the standby starts from its last checkpoint, and
		// needs settings such as max_connections and max_wal_senders no lower than that recorded
		// (initdb's defaults, left alone on both).
		Path standby = data("standby");
		Process copy = new ProcessBuilder("cp", "-a", primary.toString(), standby.toString()).inheritIO().start();
		try {
			if (copy.waitFor() != 0) {
				throw new IllegalStateException("cp -a " + primary + " " + standby + " failed");
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while copying the primary's cluster", ex);
		}
		if (this.synchronous) {
			// After the copy: the standby's postgresql.conf has it not, so once promoted it waits for
			// no standby of its own. The name is the standby's application_name (primary_conninfo).
			// (Quoted as an identifier: a name with a hyphen is no bare word.)
			append(primary, "synchronous_standby_names = '\"sqlqueue-standby\"'\n");
		}
		append(standby, """

				port = %d
				hot_standby = on
				primary_conninfo = 'host=127.0.0.1 port=%d user=postgres application_name=sqlqueue-standby'
				""".formatted(this.standbyPort, this.primaryPort));
		Files.writeString(standby.resolve("standby.signal"), "");
	}

	private Path data(String server) {
		return this.directory.resolve(server).resolve("data");
	}

	private void start(String server) {
		if (!Files.exists(data(server).resolve("postmaster.pid"))) {
			EmbeddedPostgres.runIn(this.directory.resolve(server), pgCtl(this.binaries, this.directory.resolve(server),
					"start"));
		}
	}

	private void stop(String server) {
		if (Files.exists(data(server).resolve("postmaster.pid"))) {
			EmbeddedPostgres.runIn(this.directory.resolve(server), pgCtl(this.binaries, this.directory.resolve(server),
					"stop"));
		}
	}

	private static List<String> pgCtl(Path binaries, Path server, String action) {
		return List.of(EmbeddedPostgres.bin(binaries, "pg_ctl"), "-D", server.resolve("data").toString(), "-l",
				server.resolve("postgres.log").toString(), "-w", "-t", "60", "-m", "fast", action);
	}

	private static void append(Path data, String settings) {
		try {
			Files.writeString(data.resolve("postgresql.conf"), settings, StandardCharsets.UTF_8,
					StandardOpenOption.APPEND);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

}
