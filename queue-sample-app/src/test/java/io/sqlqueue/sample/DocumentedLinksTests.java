package io.sqlqueue.sample;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

import static io.sqlqueue.sample.DocumentedCalls.documentedPages;
import static io.sqlqueue.sample.DocumentedCalls.repositoryFile;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every link of {@code README.md}, {@code docs/*.md} and {@code queue-sample-app/USAGE.md}
 * leads somewhere: a relative link to a file or folder of this repository, and its
 * {@code #anchor} to a heading of that page (as GitHub names headings). Links that leave the
 * repository are allowed only to the upstream documentation named in {@link #UPSTREAM}.
 * Code blocks and code spans are not read: what they show is code, not a link.
 */
class DocumentedLinksTests {

	/** Hosts of upstream documentation a page may link to. */
	private static final Set<String> UPSTREAM = Set.of("docs.spring.io", "www.postgresql.org", "mariadb.com",
			"dev.mysql.com", "www.sqlite.org", "www.h2database.com", "docs.micrometer.io");

	private static final Pattern LINK = Pattern.compile("!?\\[((?:[^\\[\\]]|\\[[^\\]]*\\])*)\\]\\(([^)\\s]+)(?:\\s+\"[^\"]*\")?\\)");

	private static final Pattern HEADING = Pattern.compile("^(#{1,6})\\s+(.+?)\\s*#*\\s*$");

	private static final Pattern FENCE = Pattern.compile("^\\s*(```|~~~)");

	private static final Pattern SCHEME = Pattern.compile("^([a-zA-Z][a-zA-Z0-9+.-]*):");

	@Test
	void everyLinkLeadsToAFileOrHeadingOfTheRepository() throws IOException {
		Path root = repositoryFile("").toAbsolutePath().normalize();
		List<String> broken = new ArrayList<>();
		int checked = 0;
		for (Path page : documentedPages()) {
			String name = root.relativize(page).toString();
			List<String> lines = prose(page);
			for (int i = 0; i < lines.size(); i++) {
				Matcher link = LINK.matcher(lines.get(i));
				while (link.find()) {
					checked++;
					String problem = check(root, page, link.group(2));
					if (problem != null) {
						broken.add(name + ":" + (i + 1) + ": " + link.group() + ": " + problem);
					}
				}
			}
		}
		assertThat(checked).as("links read").isGreaterThan(50);
		assertThat(broken).as("links that lead nowhere").isEmpty();
	}

	@Test
	void readmeLinksAtLeastSixDocsPages() throws IOException {
		Set<String> linked = new LinkedHashSet<>();
		for (String line : prose(repositoryFile("README.md"))) {
			Matcher link = LINK.matcher(line);
			while (link.find()) {
				String target = link.group(2).replaceFirst("#.*", "");
				if (target.startsWith("docs/") && target.endsWith(".md")) {
					linked.add(target);
				}
			}
		}
		assertThat(linked).as("docs pages the README links").hasSizeGreaterThanOrEqualTo(6);
		assertThat(Files.readAllLines(repositoryFile("README.md"))).as("lines of the README").hasSizeLessThanOrEqualTo(300);
	}

	private static String check(Path root, Path page, String target) throws IOException {
		Matcher scheme = SCHEME.matcher(target);
		if (scheme.find()) {
			String host = target.replaceFirst("^[a-zA-Z]+://", "").replaceFirst("[/:?#].*", "");
			boolean web = scheme.group(1).equalsIgnoreCase("https") || scheme.group(1).equalsIgnoreCase("http");
			return (web && UPSTREAM.contains(host.toLowerCase(Locale.ROOT))) ? null
					: "leaves the repository (only upstream documentation may: " + UPSTREAM + ")";
		}
		int hash = target.indexOf('#');
		String path = (hash >= 0) ? target.substring(0, hash) : target;
		String anchor = (hash >= 0) ? target.substring(hash + 1) : null;
		Path file = path.isEmpty() ? page : page.getParent().resolve(path).toAbsolutePath().normalize();
		if (!file.startsWith(root)) {
			return "leaves the repository";
		}
		if (!Files.exists(file)) {
			return "no such file: " + root.relativize(file);
		}
		if (anchor != null && file.toString().endsWith(".md") && !anchors(file).contains(anchor)) {
			return "no heading #" + anchor + " in " + root.relativize(file);
		}
		return null;
	}

	/** The anchors GitHub gives a page's headings: lower case, punctuation dropped, spaces as dashes. */
	static Set<String> anchors(Path page) throws IOException {
		Set<String> anchors = new LinkedHashSet<>();
		Map<String, Integer> seen = new HashMap<>();
		for (String line : outsideCodeBlocks(page)) {
			Matcher heading = HEADING.matcher(line);
			if (!heading.matches()) {
				continue;
			}
			String text = heading.group(2)
				.replaceAll("!?\\[([^\\]]*)\\]\\([^)]*\\)", "$1")
				.replaceAll("<[^>]*>", "")
				.toLowerCase(Locale.ROOT)
				.replaceAll("[^\\p{L}\\p{N}_\\- ]", "")
				.replace(' ', '-');
			int count = seen.merge(text, 1, Integer::sum);
			anchors.add((count == 1) ? text : text + "-" + (count - 1));
		}
		return anchors;
	}

	/** A page's lines outside code blocks, with code spans blanked. */
	private static List<String> prose(Path page) throws IOException {
		return outsideCodeBlocks(page).stream().map((line) -> line.replaceAll("(`+)(?:(?!\\1).)+?\\1", "``")).toList();
	}

	/** A page's lines, those of code blocks blank. */
	private static List<String> outsideCodeBlocks(Path page) throws IOException {
		List<String> prose = new ArrayList<>();
		boolean code = false;
		for (String line : Files.readAllLines(page)) {
			if (FENCE.matcher(line).find()) {
				code = !code;
				prose.add("");
				continue;
			}
			prose.add(code ? "" : line);
		}
		return prose;
	}

}
