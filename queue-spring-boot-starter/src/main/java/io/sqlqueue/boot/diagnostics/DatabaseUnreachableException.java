package io.sqlqueue.boot.diagnostics;

import java.sql.SQLException;
import java.util.regex.Pattern;

import org.jspecify.annotations.Nullable;

/**
 * The queue could not connect to its database at start-up, where it reads the database's
 * metadata to choose its SQL dialect: the database is not running, not reachable from here,
 * or refuses the credentials. Explained by {@link DatabaseUnreachableFailureAnalyzer}, so the
 * report leads with the database and the cause rather than with the bean that needed the queue.
 */
public class DatabaseUnreachableException extends IllegalStateException {

	private static final long serialVersionUID = 1L;

	private static final Pattern PASSWORD = Pattern.compile("(?i)(password=)[^&;]*");

	private final @Nullable String url;

	/**
	 * @param url the JDBC URL of the queue's data source, or {@code null} where it is not known
	 * @param cause what the connection attempt threw
	 */
	public DatabaseUnreachableException(@Nullable String url, SQLException cause) {
		super("sqlqueue could not connect to its database" + ((url != null) ? " at " + masked(url) : "")
				+ " to choose its SQL dialect: " + rootMessage(cause), cause);
		this.url = (url != null) ? masked(url) : null;
	}

	/** The JDBC URL, a password in it masked; {@code null} where it is not known. */
	public @Nullable String getUrl() {
		return this.url;
	}

	/** The message of the innermost cause: "Connection refused", not the pool's wrapping of it. */
	static String rootMessage(Throwable failure) {
		Throwable root = failure;
		while (root.getCause() != null && root.getCause() != root) {
			root = root.getCause();
		}
		String message = (root.getMessage() != null) ? root.getMessage() : root.getClass().getSimpleName();
		return (root == failure) ? message : message + " (" + root.getClass().getName() + ")";
	}

	private static String masked(String url) {
		return PASSWORD.matcher(url).replaceAll("$1******");
	}

}
