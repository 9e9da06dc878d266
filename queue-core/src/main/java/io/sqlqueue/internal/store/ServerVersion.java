package io.sqlqueue.internal.store;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.jspecify.annotations.Nullable;

/**
 * A database's version as JDBC metadata reports it ({@code 10.11.19-MariaDB-0+deb12u1},
 * {@code 8.0.36}, {@code 3.53.2}), for the minimum-version checks at start-up.
 */
public record ServerVersion(int major, int minor, int patch) implements Comparable<ServerVersion> {

	private static final Pattern VERSION = Pattern.compile("(\\d+)\\.(\\d+)(?:\\.(\\d+))?");

	/**
	 * The first {@code major.minor[.patch]} in the text. MariaDB before 11 can present
	 * itself to MySQL clients as {@code 5.5.5-10.6.4-MariaDB}; that prefix is skipped.
	 */
	public static @Nullable ServerVersion parse(@Nullable String text) {
		if (text == null) {
			return null;
		}
		String version = text.startsWith("5.5.5-") ? text.substring("5.5.5-".length()) : text;
		Matcher matcher = VERSION.matcher(version);
		if (!matcher.find()) {
			return null;
		}
		String patch = matcher.group(3);
		return new ServerVersion(Integer.parseInt(matcher.group(1)), Integer.parseInt(matcher.group(2)),
				(patch != null) ? Integer.parseInt(patch) : 0);
	}

	public boolean isAtLeast(int major, int minor, int patch) {
		return compareTo(new ServerVersion(major, minor, patch)) >= 0;
	}

	@Override
	public int compareTo(ServerVersion other) {
		int byMajor = Integer.compare(this.major, other.major);
		if (byMajor != 0) {
			return byMajor;
		}
		int byMinor = Integer.compare(this.minor, other.minor);
		return (byMinor != 0) ? byMinor : Integer.compare(this.patch, other.patch);
	}

	@Override
	public String toString() {
		return this.major + "." + this.minor + "." + this.patch;
	}

}
