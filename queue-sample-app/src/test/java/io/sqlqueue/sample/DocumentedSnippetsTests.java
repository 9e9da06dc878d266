package io.sqlqueue.sample;

import java.io.File;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.SimpleJavaFileObject;
import javax.tools.ToolProvider;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static io.sqlqueue.sample.DocumentedCalls.documentedPages;
import static io.sqlqueue.sample.DocumentedCalls.repositoryFile;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every Java snippet of {@code README.md}, {@code docs/*.md} and {@code queue-sample-app/USAGE.md}
 * compiles against the modules it documents, so a snippet cannot drift from the API.
 * <p>
 * A {@code ```java} block is a source file as a reader would copy it: its imports, then its
 * types. A block that shows only part of a class says so in its info string (which Markdown
 * renderers ignore after the first word):
 * <ul>
 * <li>{@code ```java members}: fields and methods of a class (a {@code @JobHandler} method, a
 * {@code @Bean});</li>
 * <li>{@code ```java statements}: statements of a method body.</li>
 * </ul>
 * Such a block may still begin with its imports, and should: they stay imports, and the rest
 * is wrapped in a class (members) or in a method of one (statements). What a snippet uses
 * without declaring it is the reader's own: their payload records, their services, the
 * injected {@code jobs} and {@code schedules}. {@link SnippetContext} declares those; every
 * snippet sees its nested types, and a wrapped snippet's class extends it, so its fields are
 * in scope too. Each snippet is compiled in a package of its own (two snippets may declare
 * the same class), all of them in one compiler run, against the test class path plus
 * {@code target/snippet-libs} (Spring Security, for the dashboard's example; see the pom). A
 * compile error is reported at the page and line of the snippet.
 */
class DocumentedSnippetsTests {

	private static final Pattern FENCE = Pattern.compile("^( *)```java(?:[ \\t]+(\\S+))?[ \\t]*$");

	private static final Pattern PUBLIC_TYPE = Pattern
		.compile("^public\\s+(?:final\\s+|abstract\\s+|sealed\\s+)*(?:class|record|interface|enum)\\s+(\\w+)",
				Pattern.MULTILINE);

	@Test
	void everyJavaSnippetCompiles(@TempDir Path classes) throws IOException {
		List<Snippet> snippets = new ArrayList<>();
		for (Path page : documentedPages()) {
			snippets.addAll(snippets(page));
		}
		assertThat(snippets).as("Java snippets found in the README").hasSizeGreaterThan(5);

		JavaCompiler compiler = ToolProvider.getSystemJavaCompiler();
		DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
		List<String> options = List.of("--release", "17", "-proc:none", "-implicit:none", "-Xlint:none",
				"-classpath", classPath(), "-d", classes.toString());
		List<JavaFileObject> sources = snippets.stream().map(Snippet::source).collect(Collectors.toList());
		compiler.getTask(null, null, diagnostics, options, null, sources).call();

		List<String> errors = new ArrayList<>();
		for (Diagnostic<? extends JavaFileObject> diagnostic : diagnostics.getDiagnostics()) {
			if (diagnostic.getKind() == Diagnostic.Kind.ERROR) {
				errors.add(where(snippets, diagnostic) + ": " + diagnostic.getMessage(Locale.ROOT));
			}
		}
		assertThat(errors).as("compile errors of the documented snippets").isEmpty();
	}

	/** The {@code ```java} blocks of a page, each as a compilation unit. */
	static List<Snippet> snippets(Path page) throws IOException {
		String name = repositoryFile("").relativize(page).toString();
		List<String> lines = Files.readAllLines(page);
		List<Snippet> snippets = new ArrayList<>();
		for (int i = 0; i < lines.size(); i++) {
			Matcher fence = FENCE.matcher(lines.get(i));
			if (!fence.matches()) {
				continue;
			}
			// A block inside a list item is indented like its fence; its lines lose that indent.
			String indent = fence.group(1);
			int first = i + 1;
			int end = first;
			List<String> block = new ArrayList<>();
			while (end < lines.size() && !lines.get(end).strip().startsWith("```")) {
				String line = lines.get(end);
				block.add(line.startsWith(indent) ? line.substring(indent.length()) : line.stripLeading());
				end++;
			}
			Kind kind = Kind.of(fence.group(2), name + ":" + (i + 1));
			snippets.add(Snippet.of(name, first + 1, block, kind));
			i = end;
		}
		return snippets;
	}

	/** The test's class path (Surefire's, not its booter jar's) and the snippet-only jars. */
	private static String classPath() throws IOException {
		List<String> entries = new ArrayList<>();
		entries.add(System.getProperty("surefire.test.class.path", System.getProperty("java.class.path")));
		Path libs = repositoryFile("queue-sample-app/target/snippet-libs");
		assertThat(libs).as("the jars the pom copies for the snippets (mvn generate-test-resources)").isDirectory();
		try (Stream<Path> jars = Files.list(libs)) {
			jars.map(Path::toString).sorted().forEach(entries::add);
		}
		return String.join(File.pathSeparator, entries);
	}

	private static String where(List<Snippet> snippets, Diagnostic<? extends JavaFileObject> diagnostic) {
		for (Snippet snippet : snippets) {
			if (snippet.source() == diagnostic.getSource()) {
				return snippet.where((int) diagnostic.getLineNumber());
			}
		}
		return String.valueOf(diagnostic.getSource());
	}

	/** What a block holds, from the word after {@code java} in its info string. */
	enum Kind {

		/** Whole source files: imports and types. */
		UNIT,

		/** Fields and methods of a class. */
		MEMBERS,

		/** Statements of a method. */
		STATEMENTS;

		static Kind of(String word, String where) {
			if (word == null) {
				return UNIT;
			}
			return switch (word) {
				case "members" -> MEMBERS;
				case "statements" -> STATEMENTS;
				default -> throw new IllegalArgumentException(
						where + ": ```java " + word + " is none of ```java, ```java members, ```java statements");
			};
		}

	}

	/**
	 * A snippet as a source file.
	 * @param lines the source's lines, each with the page line it came from (0 for a line this
	 * test added)
	 */
	record Snippet(String page, JavaFileObject source, List<Integer> pageLines) {

		static Snippet of(String page, int firstLine, List<String> block, Kind kind) {
			String pkg = "snippets." + page.replaceAll("[^A-Za-z0-9]", "_").toLowerCase(Locale.ROOT) + "_line"
					+ firstLine;
			List<String> source = new ArrayList<>();
			List<Integer> pageLines = new ArrayList<>();
			// One line, so the page's lines keep their order below it.
			source.add("package " + pkg + "; import " + SnippetContext.class.getName() + ".*;");
			pageLines.add(0);
			int body = 0;
			if (kind != Kind.UNIT) {
				while (body < block.size() && (block.get(body).startsWith("import ") || block.get(body).isBlank())) {
					source.add(block.get(body));
					pageLines.add(firstLine + body);
					body++;
				}
				source.add("class Snippet extends " + SnippetContext.class.getName() + " {"
						+ ((kind == Kind.STATEMENTS) ? " void snippet() throws Exception {" : ""));
				pageLines.add(0);
			}
			for (int i = body; i < block.size(); i++) {
				source.add(block.get(i));
				pageLines.add(firstLine + i);
			}
			if (kind != Kind.UNIT) {
				source.add((kind == Kind.STATEMENTS) ? "}}" : "}");
				pageLines.add(0);
			}
			String text = String.join("\n", source) + "\n";
			Matcher publicType = PUBLIC_TYPE.matcher(text);
			String file = pkg.replace('.', '/') + "/" + (publicType.find() ? publicType.group(1) : "Snippet") + ".java";
			JavaFileObject object = new SimpleJavaFileObject(URI.create("string:///" + file), JavaFileObject.Kind.SOURCE) {
				@Override
				public CharSequence getCharContent(boolean ignoreEncodingErrors) {
					return text;
				}
			};
			return new Snippet(page, object, pageLines);
		}

		String where(int sourceLine) {
			int line = (sourceLine >= 1 && sourceLine <= this.pageLines.size()) ? this.pageLines.get(sourceLine - 1) : 0;
			return this.page + ":" + ((line != 0) ? line : "(the snippet's wrapper, near line " + sourceLine + ")");
		}

	}

}
