package io.sqlqueue.fault;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.sqlqueue.test.TestDatabase;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A {@link FaultWorker} JVM, and the faults a test does to it: {@code kill -9}, a freeze
 * ({@code SIGSTOP} … {@code SIGCONT}) and a clean stop (its standard input closed). Its
 * output goes to a log file beside the test's other reports.
 */
final class WorkerProcess implements AutoCloseable {

	private static final Duration EXIT_WAIT = Duration.ofSeconds(60);

	private final String id;

	private final Process process;

	private final Path log;

	private WorkerProcess(String id, Process process, Path log) {
		this.id = id;
		this.process = process;
		this.log = log;
	}

	/**
	 * @param options the worker's arguments beyond the database and its id, e.g.
	 * {@code lease-ms=15000}
	 */
	static WorkerProcess start(String id, TestDatabase.Isolated database, Path logs, String... options)
			throws IOException {
		Files.createDirectories(logs);
		Path log = logs.resolve(id + ".log");
		String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
		// A small heap and the serial collector: several of these share two cores with the build.
		List<String> command = new ArrayList<>(List.of(java, "-Xmx256m", "-XX:+UseSerialGC", "-cp",
				System.getProperty("java.class.path"), FaultWorker.class.getName(), "url=" + database.url(),
				"user=" + database.user(), "schema=" + database.schema(), "id=" + id));
		command.addAll(List.of(options));
		ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true)
			.redirectOutput(log.toFile());
		builder.environment().put(FaultWorker.PASSWORD_VARIABLE, database.password());
		return new WorkerProcess(id, builder.start(), log);
	}

	String id() {
		return this.id;
	}

	boolean isAlive() {
		return this.process.isAlive();
	}

	/** {@code kill -9}: no shutdown hook, no last write; returns once the process is gone. */
	void kill() throws InterruptedException {
		this.process.destroyForcibly();
		assertThat(this.process.waitFor(EXIT_WAIT.toSeconds(), TimeUnit.SECONDS)).as("%s exits on SIGKILL", this.id)
			.isTrue();
	}

	/** {@code SIGSTOP}; returns once every thread of the process is stopped. */
	void freeze() {
		signal("STOP");
		await().atMost(Duration.ofSeconds(10))
			.pollInterval(Duration.ofMillis(5))
			.until(() -> "T".equals(state()) || "t".equals(state()));
	}

	void resume() {
		signal("CONT");
	}

	/** Closes the worker's standard input, which stops it cleanly; returns its exit code. */
	int stop() throws IOException, InterruptedException {
		this.process.getOutputStream().close();
		assertThat(this.process.waitFor(EXIT_WAIT.toSeconds(), TimeUnit.SECONDS))
			.as(() -> this.id + " stops within " + EXIT_WAIT + "; its log:\n" + log())
			.isTrue();
		return this.process.exitValue();
	}

	/** The worker's output so far, for failure messages. */
	String log() {
		try {
			return Files.readString(this.log);
		}
		catch (IOException ex) {
			return "(no log: " + ex + ")";
		}
	}

	/** Kills the process if it still runs (a stopped process dies on SIGKILL too). */
	@Override
	public void close() throws InterruptedException {
		if (this.process.isAlive()) {
			this.process.destroyForcibly();
			this.process.waitFor(EXIT_WAIT.toSeconds(), TimeUnit.SECONDS);
		}
	}

	/** The process state letter from {@code /proc/<pid>/stat} ({@code T} when stopped). */
	private String state() throws IOException {
		String stat = Files.readString(Path.of("/proc", String.valueOf(this.process.pid()), "stat"));
		// The command name in parentheses may hold spaces: the state follows its closing one.
		return stat.substring(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
	}

	private void signal(String signal) {
		try {
			Process kill = new ProcessBuilder("kill", "-" + signal, String.valueOf(this.process.pid()))
				.redirectErrorStream(true)
				.start();
			assertThat(kill.waitFor(10, TimeUnit.SECONDS)).isTrue();
			assertThat(kill.exitValue()).as("kill -%s %s", signal, this.id).isZero();
		}
		catch (IOException ex) {
			throw new IllegalStateException("Could not send SIG" + signal + " to " + this.id, ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

	@Override
	public String toString() {
		return this.id + " (pid " + this.process.pid() + ")";
	}

}
