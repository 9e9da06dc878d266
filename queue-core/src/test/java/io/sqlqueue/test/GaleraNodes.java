package io.sqlqueue.test;

import java.util.Arrays;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The nodes of the test Galera cluster ({@link TestDatabase#GALERA}, {@code .ci/galera}), as
 * {@code host:port}: {@code SQLQUEUE_TEST_GALERA_NODES}, else the three of {@code .ci/galera}.
 */
public final class GaleraNodes {

	private static final Pattern HOST_IN_URL = Pattern.compile("^(jdbc:[a-z:]+//)([^/]+)(/.*)$");

	private GaleraNodes() {
	}

	/** The nodes' {@code host:port}s, the first where each test's database is made. */
	public static List<String> all() {
		String nodes = System.getenv().getOrDefault("SQLQUEUE_TEST_GALERA_NODES",
				"127.0.0.1:13306,127.0.0.1:13307,127.0.0.1:13308");
		return Arrays.stream(nodes.split(",")).map(String::trim).filter((node) -> !node.isEmpty()).toList();
	}

	/** {@code url} pointed at node {@code index} (modulo their number). */
	public static String onNode(String url, int index) {
		Matcher matcher = HOST_IN_URL.matcher(url);
		if (!matcher.matches()) {
			throw new IllegalStateException("Expected a URL like jdbc:mariadb://host:port/database, got " + url);
		}
		List<String> nodes = all();
		return matcher.group(1) + nodes.get(Math.floorMod(index, nodes.size())) + matcher.group(3);
	}

	/** The node ({@code 1}, {@code 2}, …, as {@code .ci/galera} numbers them) a URL points at, or 0. */
	public static int nodeOf(String url) {
		Matcher matcher = HOST_IN_URL.matcher(url);
		return matcher.matches() ? all().indexOf(matcher.group(2)) + 1 : 0;
	}

}
