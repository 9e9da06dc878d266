package io.sqlqueue;

import java.util.regex.Pattern;

import org.jspecify.annotations.Nullable;

/**
 * Validation of the names that reach SQL: queue and handler names (always bound as
 * parameters, validated so that what is stored is predictable) and schema names
 * (written into SQL text, so they must be plain identifiers).
 */
public final class Names {

	private static final Pattern IDENTIFIER = Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,62}");

	public static final int MAX_QUEUE_LENGTH = 64;

	public static final int MAX_HANDLER_LENGTH = 128;

	public static final int MAX_KEY_LENGTH = 255;

	/** The longest tag, and the longest name of a metadata entry. */
	public static final int MAX_TAG_LENGTH = 64;

	/** The longest value of a metadata entry. */
	public static final int MAX_META_VALUE_LENGTH = 255;

	private static final Pattern TAG = Pattern.compile("[A-Za-z0-9_.:-]+");

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

	/**
	 * A tag ({@link Job#tags}) or the name of a metadata entry ({@link Job#meta}): 1 to
	 * {@value #MAX_TAG_LENGTH} characters of {@code A-Z a-z 0-9 _ . : -}, so that it reads
	 * the same in a URL, a log line and a comma-separated list.
	 */
	public static String requireTag(String kind, @Nullable String tag) {
		if (tag == null || tag.isEmpty() || tag.length() > MAX_TAG_LENGTH || !TAG.matcher(tag).matches()) {
			throw new InvalidJobException("Invalid " + kind + " '" + tag + "': expected 1 to " + MAX_TAG_LENGTH
					+ " characters of A-Z, a-z, 0-9, '_', '.', ':' or '-'");
		}
		return tag;
	}

	/** The value of a metadata entry: 1 to {@value #MAX_META_VALUE_LENGTH} characters, no NUL. */
	public static String requireMetaValue(String name, @Nullable String value) {
		if (value == null || value.isEmpty() || value.length() > MAX_META_VALUE_LENGTH) {
			throw new InvalidJobException("The value of meta '" + name + "' must have 1 to " + MAX_META_VALUE_LENGTH
					+ " characters, got " + ((value != null) ? value.length() : "null"));
		}
		if (value.indexOf('\0') >= 0) {
			throw new InvalidJobException("The value of meta '" + name + "' must not contain a NUL character (U+0000)");
		}
		return value;
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
		if (name == null || name.isEmpty() || name.length() > maxLength || !isName(name)) {
			throw new InvalidJobException("Invalid " + kind + " name '" + name + "': expected 1 to " + maxLength
					+ " characters of A-Z, a-z, 0-9, '_', '.' or '-'");
		}
		return name;
	}

	/**
	 * Whether it has only {@code A-Z a-z 0-9 _ . -}: a loop, not a regular expression, as it
	 * runs twice for every job enqueued, where a matcher took a tenth of the JVM's time.
	 */
	private static boolean isName(String name) {
		for (int i = 0; i < name.length(); i++) {
			char c = name.charAt(i);
			if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '.'
					|| c == '-')) {
				return false;
			}
		}
		return true;
	}

}
