package io.sqlqueue.sample;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static io.sqlqueue.sample.DocumentedCalls.documentedPages;
import static io.sqlqueue.sample.DocumentedCalls.repositoryFile;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A block of a page that is a copy of code the build compiles and runs says so in an HTML
 * comment on the line before its fence, which Markdown renderers do not show:
 * {@code <!-- compiled: path/From/Root.java#tag -->}. The block must be, line for line, the
 * source's lines between {@code // tag::tag[]} and {@code // end::tag[]} (several such regions
 * of one tag are joined in order; each loses its common indent, a leading tab counting four
 * spaces). So the page cannot drift from the code that its tests run: the durable handler of
 * durable-steps.md and the test of testing.md are {@code queue-test}'s
 * {@code io.sqlqueue.testkit.docs}, run there on H2, PostgreSQL and MariaDB.
 */
class DocumentedSourcesTests {

	private static final Pattern MARKER = Pattern.compile("^<!-- compiled: (\\S+)#([\\w-]+) -->$");

	private static final Pattern FENCE = Pattern.compile("^( *)```\\S*.*$");

	@Test
	void everyBlockMarkedAsCompiledIsItsSourcesRegion() throws IOException {
		List<String> drifts = new ArrayList<>();
		int marked = 0;
		for (Path page : documentedPages()) {
			marked += markers(page).size();
			drifts.addAll(drifts(page, repositoryFile("")));
		}
		assertThat(marked).as("blocks marked as compiled (durable-steps.md's handler, testing.md's test)")
			.isGreaterThanOrEqualTo(2);
		assertThat(drifts).as("pages that differ from the code they copy").isEmpty();
	}

	@Test
	void aChangedLineIsADriftNamedByPageAndLine(@TempDir Path root) throws IOException {
		Files.writeString(root.resolve("Shown.java"), """
				package shown;

				// tag::shown[]
				import java.util.List;

				// end::shown[]
				class Shown {

					// tag::shown[]
					List<String> names() {
						return List.of("a");
					}
					// end::shown[]

				}
				""");
		Path page = root.resolve("page.md");
		Files.writeString(page, """
				Some text.

				<!-- compiled: Shown.java#shown -->
				```java members
				import java.util.List;

				List<String> names() {
				    return List.of("b");
				}
				```
				""");
		assertThat(drifts(page, root)).singleElement()
			.asString()
			.contains("page.md:8", "Shown.java#shown", "return List.of(\"a\");", "return List.of(\"b\");");

		Files.writeString(page, Files.readString(page).replace("\"b\"", "\"a\""));
		assertThat(drifts(page, root)).isEmpty();
	}

	/** The marker lines of a page (0-based). */
	private static List<Integer> markers(Path page) throws IOException {
		List<String> lines = Files.readAllLines(page);
		List<Integer> markers = new ArrayList<>();
		for (int i = 0; i < lines.size(); i++) {
			if (MARKER.matcher(lines.get(i)).matches()) {
				markers.add(i);
			}
		}
		return markers;
	}

	/** How each marked block of the page differs from its source region; empty when none does. */
	static List<String> drifts(Path page, Path root) throws IOException {
		List<String> lines = Files.readAllLines(page);
		List<String> drifts = new ArrayList<>();
		for (int marker : markers(page)) {
			Matcher named = MARKER.matcher(lines.get(marker));
			named.matches();
			String source = named.group(1) + "#" + named.group(2);
			Matcher fence = (marker + 1 < lines.size()) ? FENCE.matcher(lines.get(marker + 1)) : null;
			if (fence == null || !fence.matches()) {
				drifts.add(page.getFileName() + ":" + (marker + 1) + ": the marker of " + source
						+ " is not followed by a fenced block");
				continue;
			}
			List<String> block = new ArrayList<>();
			int first = marker + 2;
			for (int i = first; i < lines.size() && !lines.get(i).strip().startsWith("```"); i++) {
				String line = lines.get(i);
				String indent = fence.group(1);
				block.add(line.startsWith(indent) ? line.substring(indent.length()) : line.stripLeading());
			}
			List<String> region;
			try {
				region = region(root.resolve(named.group(1)), named.group(2));
			}
			catch (IllegalArgumentException | IOException ex) {
				drifts.add(page.getFileName() + ":" + (marker + 1) + ": " + ex.getMessage());
				continue;
			}
			for (int i = 0; i < Math.max(block.size(), region.size()); i++) {
				String shown = (i < block.size()) ? block.get(i) : "(the block has ended)";
				String compiled = (i < region.size()) ? region.get(i) : "(the source's region has ended)";
				if (!shown.stripTrailing().equals(compiled.stripTrailing())) {
					drifts.add(page.getFileName() + ":" + (first + i + 1) + " differs from " + source + ": the page has\n  "
							+ shown + "\nwhere the source has\n  " + compiled);
					break;
				}
			}
		}
		return drifts;
	}

	/** The lines between the tag's markers in the source, each region without its common indent. */
	static List<String> region(Path source, String tag) throws IOException {
		if (!Files.isRegularFile(source)) {
			throw new IllegalArgumentException("No source " + source + " for the region '" + tag + "'");
		}
		List<String> lines = new ArrayList<>();
		List<String> current = null;
		for (String line : Files.readAllLines(source)) {
			String stripped = line.strip();
			if (stripped.equals("// tag::" + tag + "[]")) {
				current = new ArrayList<>();
			}
			else if (stripped.equals("// end::" + tag + "[]")) {
				if (current == null) {
					throw new IllegalArgumentException(source + ": an end of '" + tag + "' without its start");
				}
				lines.addAll(withoutCommonIndent(current));
				current = null;
			}
			else if (current != null) {
				current.add(line.replaceFirst("^\\t+", "    ".repeat(leadingTabs(line))));
			}
		}
		if (current != null || lines.isEmpty()) {
			throw new IllegalArgumentException(source + ": no closed region '" + tag + "'");
		}
		return lines;
	}

	private static int leadingTabs(String line) {
		int tabs = 0;
		while (tabs < line.length() && line.charAt(tabs) == '\t') {
			tabs++;
		}
		return tabs;
	}

	private static List<String> withoutCommonIndent(List<String> lines) {
		int indent = lines.stream()
			.filter((line) -> !line.isBlank())
			.mapToInt((line) -> line.length() - line.stripLeading().length())
			.min()
			.orElse(0);
		return lines.stream().map((line) -> line.isBlank() ? "" : line.substring(indent)).toList();
	}

}
