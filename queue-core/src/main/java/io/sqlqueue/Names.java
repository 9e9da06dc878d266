package io.sqlqueue;

import java.util.regex.Pattern;

import org.jspecify.annotations.Nullable;

/**
 * Validation of the names that reach SQL: queue and handler names (always bound as
 * parameters, validated so that what is stored is predictable) and schema names
 * (written into SQL text, so they must be plain identifiers).
 */
public final class Names {

	private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_.-]+");

	private static final Pattern IDENTIFIER = Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,62}");

	public static final int MAX_QUEUE_LENGTH = 64;

	public static final int MAX_HANDLER_LENGTH = 128;

	public static final int MAX_KEY_LENGTH = 255;

	private Names() {
	}

	public static String requireQueue(@Nullable String queue) {
		return requireName("queue", queue, MAX_QUEUE_LENGTH);
	}

	public static String requireHandler(@Nullable String handler) {
		return requireName("handler", handler, MAX_HANDLER_LENGTH);
	}

	public static @Nullable String requireKey(String kind, @Nullable String key) {
		if (key != null && (key.isEmpty() || key.length() > MAX_KEY_LENGTH)) {
			throw new InvalidJobException(kind + " must have 1 to " + MAX_KEY_LENGTH + " characters, got " + key.length());
		}
		if (key != null && key.indexOf('\0') >= 0) {
			// PostgreSQL stores no NUL in text; refused everywhere so that what enqueues in dev enqueues in prod.
			throw new InvalidJobException(kind + " must not contain a NUL character (U+0000)");
		}
		return key;
	}

	/** A schema name to be written into SQL text: a plain identifier or nothing. */
	public static @Nullable String requireSchema(@Nullable String schema) {
		if (schema == null || schema.isEmpty()) {
			return null;
		}
		if (!IDENTIFIER.matcher(schema).matches()) {
			throw new IllegalArgumentException("Invalid schema name '" + schema
					+ "': expected a letter or '_' followed by up to 62 letters, digits or '_'");
		}
		return schema;
	}

	private static String requireName(String kind, @Nullable String name, int maxLength) {
		if (name == null || name.isEmpty() || name.length() > maxLength || !NAME.matcher(name).matches()) {
			throw new InvalidJobException("Invalid " + kind + " name '" + name + "': expected 1 to " + maxLength
					+ " characters of A-Z, a-z, 0-9, '_', '.' or '-'");
		}
		return name;
	}

}
