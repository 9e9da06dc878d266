package io.sqlqueue.sample;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.jspecify.annotations.Nullable;

/**
 * A {@code curl} command written in a Markdown page, with the answer the page promises
 * for it: the comment after the command, the {@code #} lines right below it in the same
 * code block, and a code block that follows at once and is not a shell block (the answer
 * shown as output, e.g. {@code HTTP/1.1 201} with headers and a body).
 *
 * @param file the page, for messages
 * @param line the line the command starts on, from 1
 * @param command the command without its comment, continued lines ({@code \}) joined
 * @param promise what the page says the answer is; empty when it says nothing
 */
record DocumentedCurl(String file, int line, String command, String promise) {

	// A fence line, with the language of a block that it opens and any words after it ("```java members").
	private static final Pattern FENCE = Pattern.compile("^\\s*```\\s*([A-Za-z]*)(?:\\s+[A-Za-z][\\w ]*)?\\s*$");

	/** A curl written anywhere in a page, also inside a sentence; each one must be found by {@link #read}. */
	private static final Pattern ANY_CURL = Pattern.compile("(?<![\\w-])curl\\s+(?:-|['\"]?localhost|['\"]?https?://)");

	/**
	 * Every curl command of a Markdown page, in page order: each line that starts with
	 * {@code curl}, inside a code block or not.
	 * @throws IllegalStateException when the page mentions a curl command elsewhere (in a
	 * sentence), which this reader would miss
	 */
	static List<DocumentedCurl> read(Path page) throws IOException {
		List<String> lines = Files.readAllLines(page);
		String file = DocumentedCalls.repositoryFile("").relativize(page).toString();
		List<DocumentedCurl> curls = new ArrayList<>();
		String fence = null;
		for (int i = 0; i < lines.size(); i++) {
			Matcher fenceLine = FENCE.matcher(lines.get(i));
			if (fenceLine.matches()) {
				fence = (fence == null) ? fenceLine.group(1) : null;
				continue;
			}
			if (!lines.get(i).strip().startsWith("curl ")) {
				continue;
			}
			int start = i;
			StringBuilder text = new StringBuilder(lines.get(i).strip());
			while (text.toString().endsWith("\\") && i + 1 < lines.size()) {
				text.setLength(text.length() - 1);
				text = new StringBuilder(text.toString().stripTrailing()).append(' ').append(lines.get(++i).strip());
			}
			String[] commandAndComment = splitComment(text.toString());
			StringBuilder promise = new StringBuilder(commandAndComment[1]);
			while (fence != null && i + 1 < lines.size() && lines.get(i + 1).strip().startsWith("#")) {
				promise.append('\n').append(uncomment(lines.get(++i)));
			}
			if (fence != null && i + 1 < lines.size() && FENCE.matcher(lines.get(i + 1)).matches()) {
				int answer = i + 2;
				while (answer < lines.size() && lines.get(answer).isBlank()) {
					answer++;
				}
				Matcher next = (answer < lines.size()) ? FENCE.matcher(lines.get(answer)) : null;
				if (next != null && next.matches() && !isShell(next.group(1))) {
					for (int j = answer + 1; j < lines.size() && !FENCE.matcher(lines.get(j)).matches(); j++) {
						promise.append('\n').append(lines.get(j));
					}
				}
			}
			curls.add(new DocumentedCurl(file, start + 1, commandAndComment[0], promise.toString().strip()));
		}
		long mentioned = ANY_CURL.matcher(String.join("\n", lines)).results().count();
		if (mentioned != curls.size()) {
			throw new IllegalStateException(file + " mentions " + mentioned + " curl commands but only " + curls.size()
					+ " start a line; write each command on a line of its own, so a test can run it");
		}
		return curls;
	}

	private static boolean isShell(String language) {
		return language.equals("shell") || language.equals("sh") || language.equals("bash")
				|| language.equals("console");
	}

	private static String uncomment(String line) {
		String text = line.strip().substring(1);
		return text.startsWith(" ") ? text.substring(1) : text;
	}

	/** The command and the text of its trailing comment (an unquoted {@code #} after a space). */
	private static String[] splitComment(String text) {
		char quote = 0;
		for (int i = 0; i < text.length(); i++) {
			char c = text.charAt(i);
			if (quote != 0) {
				quote = (c == quote) ? 0 : quote;
			}
			else if (c == '\'' || c == '"') {
				quote = c;
			}
			else if (c == '#' && i > 0 && Character.isWhitespace(text.charAt(i - 1))) {
				return new String[] { text.substring(0, i).strip(), text.substring(i + 1).strip() };
			}
		}
		return new String[] { text.strip(), "" };
	}

	/** Where the command is written, for messages. */
	String where() {
		return this.file + ":" + this.line;
	}

	/** The command with every run of white space as one space, for comparing. */
	static String normalize(String command) {
		return command.strip().replaceAll("\\s+", " ");
	}

	/**
	 * The request the command makes. Understands what the pages use: {@code -X},
	 * {@code -H}, {@code -d}, {@code -i}, {@code -s}, a URL on {@code localhost:8080}, and a
	 * pipe into {@code grep PATTERN}.
	 * @throws IllegalArgumentException for anything else, so an unknown option is never ignored
	 */
	Request request() {
		List<String> words = words(this.command);
		if (words.isEmpty() || !words.get(0).equals("curl")) {
			throw new IllegalArgumentException(where() + ": not a curl command: " + this.command);
		}
		String method = null;
		String url = null;
		String body = null;
		Pattern grep = null;
		Map<String, String> headers = new LinkedHashMap<>();
		for (int i = 1; i < words.size(); i++) {
			String word = words.get(i);
			if (word.equals("|")) {
				List<String> pipe = words.subList(i + 1, words.size());
				if (pipe.size() != 2 || !pipe.get(0).equals("grep")) {
					throw new IllegalArgumentException(where() + ": only '| grep PATTERN' is understood, not " + pipe);
				}
				grep = Pattern.compile(pipe.get(1));
				break;
			}
			switch (word) {
				case "-X" -> method = words.get(++i);
				case "-H" -> {
					String header = words.get(++i);
					int colon = header.indexOf(':');
					headers.put(header.substring(0, colon).strip(), header.substring(colon + 1).strip());
				}
				case "-d" -> body = words.get(++i);
				case "-i", "-s", "-si", "-is" -> {
					// -i shows the status line and headers; the check sees them either way. -s is curl's own quiet.
				}
				default -> {
					if (word.startsWith("-")) {
						throw new IllegalArgumentException(where() + ": curl option " + word
								+ " is not understood by DocumentedCurl; teach it, or write the call without it");
					}
					if (url != null) {
						throw new IllegalArgumentException(where() + ": two URLs: " + url + ", " + word);
					}
					url = word;
				}
			}
		}
		if (url == null) {
			throw new IllegalArgumentException(where() + ": no URL");
		}
		String path = url.replaceFirst("^(https?://)?localhost:8080", "");
		if (path.equals(url) || !path.startsWith("/")) {
			throw new IllegalArgumentException(where() + ": the URL must be on localhost:8080, not " + url);
		}
		if (body != null && headers.keySet().stream().noneMatch("Content-Type"::equalsIgnoreCase)) {
			headers.put("Content-Type", "application/x-www-form-urlencoded");
		}
		if (method == null) {
			method = (body != null) ? "POST" : "GET";
		}
		return new Request(method, path, headers, body, grep);
	}

	/** Splits like a POSIX shell for what the pages use: single and double quotes, and a lone {@code |}. */
	private static List<String> words(String command) {
		List<String> words = new ArrayList<>();
		StringBuilder word = null;
		char quote = 0;
		for (int i = 0; i < command.length(); i++) {
			char c = command.charAt(i);
			if (quote != 0) {
				if (c == quote) {
					quote = 0;
				}
				else {
					word.append(c);
				}
			}
			else if (c == '\'' || c == '"') {
				quote = c;
				word = (word != null) ? word : new StringBuilder();
			}
			else if (Character.isWhitespace(c)) {
				if (word != null) {
					words.add(word.toString());
					word = null;
				}
			}
			else {
				word = (word != null) ? word : new StringBuilder();
				word.append(c);
			}
		}
		if (quote != 0) {
			throw new IllegalArgumentException("Unclosed quote in: " + command);
		}
		if (word != null) {
			words.add(word.toString());
		}
		return words;
	}

	/**
	 * The HTTP request of a curl command.
	 * @param path the path and query, to be sent to wherever the application listens
	 * @param grep the pattern of a {@code | grep}, which keeps only the lines of the body it finds
	 */
	record Request(String method, String path, Map<String, String> headers, @Nullable String body,
			@Nullable Pattern grep) {
	}

}
