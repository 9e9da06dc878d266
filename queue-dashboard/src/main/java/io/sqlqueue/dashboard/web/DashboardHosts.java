package io.sqlqueue.dashboard.web;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Pattern;

import org.jspecify.annotations.Nullable;

/**
 * The hosts the dashboard answers on, against DNS rebinding: a page of another site whose
 * name is pointed at the dashboard's address once the page has loaded sends its requests
 * with that name as {@code Host} and as {@code Origin}, so every same-origin check passes,
 * and the browser lets the page read the answers too. Only the host tells it apart, so
 * without Spring Security every request (reads as much as actions: the jobs, payloads and
 * errors are what such a page would read) must come to a loopback host ({@code localhost},
 * {@code 127.0.0.0/8}, {@code [::1]}, which no one else's page can be served from) or to
 * one of {@code sqlqueue.dashboard.allowed-hosts}. With Spring Security on the class path
 * and no hosts configured, the application's own rules decide: a rebound page carries no
 * session of the real host, and actions need a signed-in user. Decided once at start-up.
 */
public final class DashboardHosts {

	/** The property that lists the allowed hosts, named in every refusal. */
	public static final String PROPERTY = "sqlqueue.dashboard.allowed-hosts";

	private static final String ANY = "*";

	private static final Pattern NAME = Pattern.compile("[a-z0-9]([a-z0-9.-]*[a-z0-9])?");

	/** An IPv6 address: hex digits and at least two colons (and an IPv4 tail's dots). */
	private static final Pattern IPV6 = Pattern.compile("(?=.*:.*:)[0-9a-f:][0-9a-f:.]*");

	private static final Pattern IPV4_LOOPBACK = Pattern.compile("127(\\.(25[0-5]|2[0-4][0-9]|1?[0-9]?[0-9])){3}");

	/** {@code null} when every host is allowed. */
	private final @Nullable Set<String> allowed;

	private DashboardHosts(@Nullable Set<String> allowed) {
		this.allowed = allowed;
	}

	/**
	 * @param allowed {@value #PROPERTY}: host names or addresses, without scheme or port, or
	 * {@code *} for any host
	 * @param securityPresent whether Spring Security is on the class path
	 * @throws IllegalStateException naming the property when an entry is no host
	 */
	public static DashboardHosts of(Collection<String> allowed, boolean securityPresent) {
		Set<String> hosts = new LinkedHashSet<>();
		for (String entry : allowed) {
			String host = normalized(entry);
			if (!host.equals(ANY) && !NAME.matcher(host).matches() && !IPV6.matcher(host).matches()) {
				throw new IllegalStateException(PROPERTY + " lists host names or addresses without scheme or port, "
						+ "such as ops.example.com or 10.0.0.7, or '*' for any host; not '" + entry + "'");
			}
			hosts.add(host);
		}
		boolean any = hosts.contains(ANY) || (hosts.isEmpty() && securityPresent);
		return new DashboardHosts(any ? null : Set.copyOf(hosts));
	}

	/** Whether every host is allowed. */
	public boolean allowsAnyHost() {
		return this.allowed == null;
	}

	/**
	 * Why a request to this host is refused, or {@code null} when it is allowed.
	 * @param host the request's host, as the servlet container reads it from {@code Host}
	 * (or from the forwarded headers, where the application trusts them)
	 */
	@Nullable String refusal(String host) {
		if (this.allowed == null) {
			return null;
		}
		String name = normalized(host);
		if (isLoopback(name) || this.allowed.contains(name)) {
			return null;
		}
		return "The dashboard does not answer on host '" + host + "': without Spring Security it answers only on "
				+ "localhost, 127.0.0.0/8, [::1]" + (this.allowed.isEmpty() ? "" : " and " + this.allowed)
				+ " (another host may be another site's name pointed at this address); add the host the dashboard "
				+ "is reached by to " + PROPERTY;
	}

	private static String normalized(String host) {
		String name = host.trim().toLowerCase(Locale.ROOT);
		if (name.startsWith("[") && name.endsWith("]")) {
			name = name.substring(1, name.length() - 1);
		}
		return (name.endsWith(".") && name.length() > 1) ? name.substring(0, name.length() - 1) : name;
	}

	/** Only literals are parsed: looking a name up would ask the very DNS an attacker answers. */
	private static boolean isLoopback(String host) {
		if (host.equals("localhost") || IPV4_LOOPBACK.matcher(host).matches()) {
			return true;
		}
		if (IPV6.matcher(host).matches()) {
			try {
				// A text with colons is parsed as an IPv6 literal, never looked up.
				return InetAddress.getByName(host).isLoopbackAddress();
			}
			catch (UnknownHostException ex) {
				return false;
			}
		}
		return false;
	}

}
