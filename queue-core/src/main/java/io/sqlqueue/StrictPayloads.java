package io.sqlqueue;

import java.lang.annotation.Annotation;
import java.lang.reflect.Constructor;
import java.lang.reflect.Executable;
import java.lang.reflect.Parameter;
import java.lang.reflect.RecordComponent;
import java.util.Arrays;
import java.util.stream.Stream;

import com.fasterxml.jackson.annotation.JsonSetter;
import com.fasterxml.jackson.annotation.Nulls;
import org.jspecify.annotations.Nullable;

import tools.jackson.databind.AnnotationIntrospector;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.cfg.MapperConfig;
import tools.jackson.databind.introspect.Annotated;
import tools.jackson.databind.introspect.AnnotatedMember;
import tools.jackson.databind.introspect.AnnotatedParameter;
import tools.jackson.databind.introspect.NopAnnotationIntrospector;
import tools.jackson.databind.json.JsonMapper;

/**
 * Strict decoding of payloads: a payload must have the shape of the handler's type, so that
 * a job enqueued with another type, or queued before a field was renamed, fails instead of
 * running with nulls. On a copy of the application's mapper (its modules, naming strategy
 * and annotations apply): unknown properties fail, and so does a parameter of a creator (a
 * record's components, a {@code @JsonCreator}'s parameters) that is missing or
 * {@code null}, unless it is {@code Optional} or annotated with an annotation named
 * {@code Nullable} (JSpecify's, or any other) or its own {@code @JsonSetter(nulls = …)}.
 * Properties set through setters or fields may still be missing: their class's defaults
 * stand. A type can allow unknown properties with
 * {@code @JsonIgnoreProperties(ignoreUnknown = true)}.
 */
final class StrictPayloads extends NopAnnotationIntrospector {

	private static final JsonSetter.Value NULLS_FAIL = JsonSetter.Value.forValueNulls(Nulls.FAIL);

	private StrictPayloads() {
	}

	/** A copy of {@code mapper} that ignores unknown properties, for lenient handlers. */
	static JsonMapper lenient(JsonMapper mapper) {
		return mapper.rebuild().disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES).build();
	}

	/** A copy of {@code mapper} that decodes strictly. */
	static JsonMapper strict(JsonMapper mapper) {
		AnnotationIntrospector own = mapper.deserializationConfig().getAnnotationIntrospector();
		return mapper.rebuild()
			.enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
			.annotationIntrospector((own != null) ? AnnotationIntrospector.pair(new StrictPayloads(), own)
					: new StrictPayloads())
			.build();
	}

	@Override
	public @Nullable Boolean hasRequiredMarker(MapperConfig<?> config, AnnotatedMember member) {
		return (member instanceof AnnotatedParameter parameter && isRequired(parameter)) ? Boolean.TRUE : null;
	}

	@Override
	public JsonSetter.@Nullable Value findSetterInfo(MapperConfig<?> config, Annotated annotated) {
		return (annotated instanceof AnnotatedParameter parameter && isRequired(parameter)
				&& !parameter.hasAnnotation(JsonSetter.class)) ? NULLS_FAIL : null;
	}

	private static boolean isRequired(AnnotatedParameter parameter) {
		if (!(parameter.getMember() instanceof Executable creator)
				|| parameter.getIndex() >= creator.getParameterCount()) {
			return false;
		}
		Class<?> type = parameter.getRawType();
		if (type.getName().startsWith("java.util.Optional")) {
			return false;
		}
		Parameter declared = creator.getParameters()[parameter.getIndex()];
		return !(isNullable(declared.getAnnotations()) || isNullable(declared.getAnnotatedType().getAnnotations())
				|| isNullableRecordComponent(creator, parameter.getIndex()));
	}

	/** Annotations on a record component reach its canonical constructor only where their target allows. */
	private static boolean isNullableRecordComponent(Executable creator, int index) {
		Class<?> owner = creator.getDeclaringClass();
		if (!(creator instanceof Constructor<?>) || !owner.isRecord()) {
			return false;
		}
		RecordComponent[] components = owner.getRecordComponents();
		Class<?>[] canonical = Arrays.stream(components).map(RecordComponent::getType).toArray(Class<?>[]::new);
		if (!Arrays.equals(canonical, creator.getParameterTypes())) {
			return false;
		}
		RecordComponent component = components[index];
		return isNullable(component.getAnnotations()) || isNullable(component.getAnnotatedType().getAnnotations());
	}

	private static boolean isNullable(Annotation[] annotations) {
		return Stream.of(annotations).anyMatch((annotation) -> annotation.annotationType().getSimpleName()
			.equals("Nullable"));
	}

}
