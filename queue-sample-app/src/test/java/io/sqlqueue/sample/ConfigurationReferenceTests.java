package io.sqlqueue.sample;

import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Comparator;
import java.util.Enumeration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import com.jayway.jsonpath.JsonPath;
import org.junit.jupiter.api.Test;

import static io.sqlqueue.sample.DocumentedCalls.repositoryFile;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

/**
 * {@code docs/configuration.md} lists every property of this repository's modules, as the
 * configuration metadata says, so the page cannot drift from the code.
 * <p>
 * Spring Boot's configuration processor writes {@code META-INF/spring-configuration-metadata.json}
 * for each module from its {@code @ConfigurationProperties} classes (the names, types, defaults,
 * and each field's Javadoc as the description). This test reads every such file on the test
 * class path that describes an {@code io.sqlqueue} type (this module depends on every other
 * one), renders one table per group in a stable order, and compares it with the page between
 * {@value #START} and {@value #END}; the hand-written text around the markers stays. The
 * processor does not describe the values of a map (a queue's or a schedule's own settings):
 * their rows are rendered from the value class itself, with the Javadoc of its fields read
 * from its source file, as the processor would.
 * <p>
 * With {@code -Dsqlqueue.docs.write=true} the test writes the page instead of comparing it.
 */
class ConfigurationReferenceTests {

	static final String START = "<!-- generated: start -->";

	static final String END = "<!-- generated: end -->";

	static final String PAGE = "docs/configuration.md";

	static final String REGENERATE = "./mvnw -pl queue-sample-app -am test -Dtest=ConfigurationReferenceTests "
			+ "-Dsqlqueue.docs.write=true -Dsurefire.failIfNoSpecifiedTests=false";

	private static final Map<String, String> BOXED = Map.of("boolean", "Boolean", "int", "Integer", "long", "Long",
			"double", "Double");

	private static final Pattern QUALIFIED = Pattern.compile("(?:[a-z_][\\w]*\\.)+([A-Z][\\w$]*)");

	@Test
	void configurationPageListsEveryProperty() throws IOException {
		String reference = render(metadata());
		Path page = repositoryFile(PAGE);
		String text = Files.readString(page);
		int start = text.indexOf(START);
		int end = text.indexOf(END);
		assertThat(start).as(PAGE + " has the marker " + START).isNotNegative();
		assertThat(end).as(PAGE + " has the marker " + END + " after " + START).isGreaterThan(start);
		String generated = START + "\n" + reference + END;
		String current = text.substring(start, end + END.length());
		if (Boolean.getBoolean("sqlqueue.docs.write")) {
			Files.writeString(page, text.substring(0, start) + generated + text.substring(end + END.length()));
			return;
		}
		if (!current.equals(generated)) {
			fail("%s is not what the configuration metadata says; regenerate it with%n  %s%nand commit the change."
					+ "%nFirst difference at line %d:%n  page:      %s%n  generated: %s", PAGE, REGENERATE,
					firstDifference(current, generated) + 1, line(current, firstDifference(current, generated)),
					line(generated, firstDifference(current, generated)));
		}
	}

	/** The groups and properties of every metadata file of this repository's modules. */
	static Metadata metadata() throws IOException {
		Metadata metadata = new Metadata(new TreeMap<>(), new TreeMap<>(), new TreeMap<>());
		Enumeration<URL> files = ConfigurationReferenceTests.class.getClassLoader()
			.getResources("META-INF/spring-configuration-metadata.json");
		int read = 0;
		while (files.hasMoreElements()) {
			URL file = files.nextElement();
			String json;
			try (InputStream in = file.openStream()) {
				json = new String(in.readAllBytes(), StandardCharsets.UTF_8);
			}
			List<Map<String, Object>> groups = list(json, "$.groups");
			List<Map<String, Object>> properties = list(json, "$.properties");
			boolean ours = Stream.concat(groups.stream(), properties.stream())
				.anyMatch((entry) -> String.valueOf(entry.get("sourceType")).startsWith("io.sqlqueue."));
			if (!ours) {
				continue;
			}
			read++;
			groups.forEach((group) -> metadata.groups().put((String) group.get("name"), group));
			properties.forEach((property) -> metadata.properties().put((String) property.get("name"), property));
			list(json, "$.hints").forEach((hint) -> metadata.hints().put((String) hint.get("name"), hint));
		}
		assertThat(read).as("metadata files of this repository's modules on the class path").isGreaterThanOrEqualTo(3);
		return metadata;
	}

	/** The tables: one per group, groups and properties in name order. */
	static String render(Metadata metadata) {
		Map<String, List<Row>> groups = new TreeMap<>(Comparator.comparing((String name) -> !name.startsWith("sqlqueue"))
			.thenComparing(Comparator.naturalOrder()));
		metadata.groups().keySet().forEach((name) -> groups.put(name, new ArrayList<>()));
		for (Map<String, Object> property : metadata.properties().values()) {
			String name = (String) property.get("name");
			String type = (String) property.get("type");
			if (movedAway(property)) {
				groups.computeIfAbsent(MOVED, (key) -> new ArrayList<>())
					.add(new Row(name, "", "", "Now `" + ((Map<?, ?>) property.get("deprecation")).get("replacement") + "`."));
				continue;
			}
			groups.get(groupOf(name, metadata.groups().keySet()))
				.add(new Row(name, display(type), value(property.get("defaultValue")), description(property, metadata)));
			Class<?> values = mapValues(type);
			if (values != null) {
				List<Row> rows = new ArrayList<>();
				beanRows(name + ".<name>", values, rows);
				groups.put(name + ".<name>", rows);
			}
		}
		StringBuilder out = new StringBuilder();
		groups.forEach((group, rows) -> {
			if (rows.isEmpty()) {
				return;
			}
			out.append("\n### ").append(group.equals(MOVED) ? MOVED.substring(2) : "`" + group + "`").append("\n\n");
			out.append("| property | type | default | description |\n| --- | --- | --- | --- |\n");
			rows.stream().sorted(Comparator.comparing(Row::name)).forEach((row) -> out.append("| `")
				.append(row.name())
				.append("` | ")
				.append(row.type().isEmpty() ? "" : "`" + row.type() + "`")
				.append(" | ")
				.append(row.defaultValue().isEmpty() ? "" : "`" + row.defaultValue() + "`")
				.append(" | ")
				.append(cell(row.description()))
				.append(" |\n"));
		});
		return out.append('\n').toString();
	}

	/** Names that moved before the first release: start-up fails when one is set, naming the new one. */
	private static final String MOVED = "~ Moved names (start-up fails when one is set)";

	private static boolean movedAway(Map<String, Object> property) {
		return property.get("deprecation") instanceof Map<?, ?> deprecation && "error".equals(deprecation.get("level"));
	}

	private static String groupOf(String property, Collection<String> groups) {
		return groups.stream()
			.filter((group) -> property.startsWith(group + "."))
			.max(Comparator.comparingInt(String::length))
			.orElseThrow(() -> new IllegalStateException("No group holds " + property));
	}

	private static String description(Map<String, Object> property, Metadata metadata) {
		StringBuilder text = new StringBuilder();
		if (Boolean.TRUE.equals(property.get("deprecated"))) {
			text.append("**Deprecated**");
			if (property.get("deprecation") instanceof Map<?, ?> deprecation && deprecation.get("replacement") != null) {
				text.append(": use `").append(deprecation.get("replacement")).append('`');
			}
			text.append(". ");
		}
		text.append(Objects.toString(property.get("description"), ""));
		Map<String, Object> hint = metadata.hints().get(property.get("name"));
		if (hint != null && hint.get("values") instanceof List<?> values) {
			text.append(" Values: ").append(values.stream().map((value) -> {
				Map<?, ?> entry = (Map<?, ?>) value;
				return "`" + entry.get("value") + "`" + ((entry.get("description") != null) ? " (" + stripDot(entry.get("description")) + ")" : "");
			}).collect(Collectors.joining(", "))).append('.');
		}
		else {
			String constants = enumValues((String) property.get("type"));
			if (constants != null) {
				text.append(" Values: ").append(constants).append('.');
			}
		}
		return text.toString().strip();
	}

	/**
	 * The rows of a map's value class: each field with Javadoc, by its relaxed name, a list of
	 * such a class as {@code name[].field}.
	 */
	private static void beanRows(String prefix, Class<?> type, List<Row> rows) {
		Map<String, String> javadoc = fieldJavadoc(type);
		Object defaults = instantiate(type);
		for (Field field : type.getDeclaredFields()) {
			if (Modifier.isStatic(field.getModifiers()) || !javadoc.containsKey(field.getName())) {
				continue;
			}
			String name = prefix + "." + kebab(field.getName());
			Class<?> elements = listElements(field.getGenericType());
			if (elements != null && elements.getName().startsWith("io.sqlqueue.")) {
				beanRows(name + "[]", elements, rows);
				continue;
			}
			field.setAccessible(true);
			Object value;
			try {
				value = field.get(defaults);
			}
			catch (IllegalAccessException ex) {
				throw new IllegalStateException(ex);
			}
			String description = javadoc.get(field.getName());
			String constants = enumValues(field.getType().getName());
			if (constants != null) {
				description += " Values: " + constants + ".";
			}
			rows.add(new Row(name, display(field.getGenericType().getTypeName()), value(value), description));
		}
	}

	/** The Javadoc of the fields of a class, from its source file in this repository, as the processor reads it. */
	private static Map<String, String> fieldJavadoc(Class<?> type) {
		Class<?> outer = type;
		while (outer.getEnclosingClass() != null) {
			outer = outer.getEnclosingClass();
		}
		String path = "src/main/java/" + outer.getName().replace('.', '/') + ".java";
		Path source;
		try (Stream<Path> modules = Files.list(repositoryFile(""))) {
			source = modules.map((module) -> module.resolve(path))
				.filter(Files::isRegularFile)
				.findFirst()
				.orElseThrow(() -> new IllegalStateException("No source of " + type.getName() + " at */" + path));
		}
		catch (IOException ex) {
			throw new IllegalStateException(ex);
		}
		String text;
		try {
			text = Files.readString(source);
		}
		catch (IOException ex) {
			throw new IllegalStateException(ex);
		}
		// The class's own body, also for a top-level class: from the start of the file, the class's
		// Javadoc would be read as its first field's.
		Matcher declaration = Pattern.compile("\\bclass\\s+" + type.getSimpleName() + "\\b[^{]*\\{").matcher(text);
		if (!declaration.find()) {
			throw new IllegalStateException("No class " + type.getSimpleName() + " in " + source);
		}
		int depth = 1;
		int i = declaration.end();
		while (depth > 0) {
			char c = text.charAt(i++);
			depth += (c == '{') ? 1 : (c == '}') ? -1 : 0;
		}
		String body = text.substring(declaration.end(), i - 1);
		Map<String, String> javadoc = new LinkedHashMap<>();
		Matcher field = Pattern
			.compile("/\\*\\*(.*?)\\*/\\s*(?:@[\\w.]+(?:\\([^)]*\\))?\\s+)*private\\s+(?:final\\s+)?[^=;(]*?(\\w+)\\s*[=;]",
					Pattern.DOTALL)
			.matcher(body);
		while (field.find()) {
			String comment = Arrays.stream(field.group(1).split("\n"))
				.map((line) -> line.strip().replaceFirst("^\\*\\s?", ""))
				.collect(Collectors.joining(" "))
				.replaceAll("\\{@\\w+\\s+([^}]*)}", "$1")
				.replaceAll("\\s+", " ")
				.strip();
			javadoc.put(field.group(2), comment);
		}
		return javadoc;
	}

	private static Object instantiate(Class<?> type) {
		try {
			var constructor = type.getDeclaredConstructor();
			constructor.setAccessible(true);
			return constructor.newInstance();
		}
		catch (ReflectiveOperationException ex) {
			throw new IllegalStateException("Cannot make a " + type.getName() + " to read its defaults", ex);
		}
	}

	private static Class<?> mapValues(String type) {
		Matcher map = Pattern.compile("java\\.util\\.Map<java\\.lang\\.String,\\s*([\\w.$]+)>").matcher(type);
		if (!map.matches() || !map.group(1).startsWith("io.sqlqueue.")) {
			return null;
		}
		return load(map.group(1));
	}

	private static Class<?> listElements(Type type) {
		if (type instanceof ParameterizedType parameterized && parameterized.getRawType() == List.class
				&& parameterized.getActualTypeArguments()[0] instanceof Class<?> elements) {
			return elements;
		}
		return null;
	}

	/** An enum's constants as the binder accepts them ({@code fire-once}), or null for another type. */
	private static String enumValues(String type) {
		if (type == null || !type.matches("[\\w.$]+")) {
			return null;
		}
		Class<?> loaded;
		try {
			loaded = Class.forName(type, false, ConfigurationReferenceTests.class.getClassLoader());
		}
		catch (ClassNotFoundException ex) {
			return null;
		}
		if (!loaded.isEnum()) {
			return null;
		}
		return Arrays.stream(loaded.getEnumConstants())
			.map((constant) -> "`" + kebab(((Enum<?>) constant).name()) + "`")
			.collect(Collectors.joining(", "));
	}

	private static Class<?> load(String name) {
		try {
			return Class.forName(name, false, ConfigurationReferenceTests.class.getClassLoader());
		}
		catch (ClassNotFoundException ex) {
			throw new IllegalStateException("The metadata names " + name + ", which is not on the class path", ex);
		}
	}

	/** A type as a reader writes it: {@code Map<String, QueueProperties>}, {@code Duration}. */
	private static String display(String type) {
		if (type == null) {
			return "";
		}
		Matcher qualified = QUALIFIED.matcher(type);
		StringBuilder out = new StringBuilder();
		while (qualified.find()) {
			String simple = qualified.group(1);
			qualified.appendReplacement(out, Matcher.quoteReplacement(simple.substring(simple.lastIndexOf('$') + 1)));
		}
		qualified.appendTail(out);
		return BOXED.getOrDefault(out.toString(), out.toString()).replaceAll(",(?! )", ", ");
	}

	/** A default as the page shows it; empty for none. */
	private static String value(Object value) {
		if (value == null || (value instanceof Collection<?> collection && collection.isEmpty())) {
			return "";
		}
		if (value instanceof Enum<?> constant) {
			return kebab(constant.name());
		}
		if (value instanceof Duration duration) {
			return duration(duration);
		}
		if (value instanceof List<?> list) {
			return list.stream().map(String::valueOf).collect(Collectors.joining(","));
		}
		return String.valueOf(value);
	}

	private static String duration(Duration duration) {
		long millis = duration.toMillis();
		for (Object[] unit : new Object[][] { { 86_400_000L, "d" }, { 3_600_000L, "h" }, { 60_000L, "m" }, { 1_000L, "s" } }) {
			if (millis != 0 && millis % (long) unit[0] == 0) {
				return (millis / (long) unit[0]) + (String) unit[1];
			}
		}
		return millis + "ms";
	}

	private static String kebab(String name) {
		if (name.equals(name.toUpperCase(Locale.ROOT))) {
			return name.toLowerCase(Locale.ROOT).replace('_', '-');
		}
		return name.replaceAll("([a-z0-9])([A-Z])", "$1-$2").toLowerCase(Locale.ROOT);
	}

	private static String cell(String text) {
		return text.replace("|", "\\|").replace("\n", " ");
	}

	private static String stripDot(Object text) {
		String string = String.valueOf(text).strip();
		return string.endsWith(".") ? string.substring(0, string.length() - 1) : string;
	}

	private static List<Map<String, Object>> list(String json, String path) {
		try {
			List<Map<String, Object>> list = JsonPath.read(json, path);
			return (list != null) ? list : List.of();
		}
		catch (com.jayway.jsonpath.PathNotFoundException ex) {
			return List.of();
		}
	}

	private static int firstDifference(String a, String b) {
		List<String> left = a.lines().toList();
		List<String> right = b.lines().toList();
		int i = 0;
		while (i < left.size() && i < right.size() && left.get(i).equals(right.get(i))) {
			i++;
		}
		return i;
	}

	private static String line(String text, int index) {
		List<String> lines = text.lines().toList();
		return (index < lines.size()) ? lines.get(index) : "(end)";
	}

	/** The metadata of this repository's modules, by name. */
	record Metadata(Map<String, Map<String, Object>> groups, Map<String, Map<String, Object>> properties,
			Map<String, Map<String, Object>> hints) {
	}

	/** A row of a table. */
	record Row(String name, String type, String defaultValue, String description) {
	}

}
