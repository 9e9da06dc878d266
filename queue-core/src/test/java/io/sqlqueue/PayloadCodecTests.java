package io.sqlqueue;

import java.util.Optional;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonSetter;
import com.fasterxml.jackson.annotation.Nulls;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.PropertyNamingStrategies;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** What strict decoding refuses and what it lets through, without a database. */
class PayloadCodecTests {

	private final PayloadCodec codec = new PayloadCodec(
			JsonMapper.builder().disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES).build(), 4096);

	@Test
	void aPayloadOfAnotherRecordFailsNamingTheTypeAndAField() {
		assertThatThrownBy(() -> decode("{\"customer\":\"acme\",\"copies\":7}", WelcomeMail.class))
			.isInstanceOf(PayloadDecodingException.class)
			.hasMessageStartingWith("The payload cannot be decoded as " + WelcomeMail.class.getName()
					+ " for handler 'mail.welcome': Missing required creator property 'email'")
			.hasMessageContaining("@JobHandler(lenientPayload = true)");
	}

	@Test
	void anUnknownPropertyFailsNamingIt() {
		assertThatThrownBy(() -> decode("{\"email\":\"ada@example.com\",\"name\":\"Ada\",\"customer\":\"acme\"}",
				WelcomeMail.class))
			.isInstanceOf(PayloadDecodingException.class)
			.hasMessageContaining("Unrecognized property \"customer\"");
	}

	@Test
	void aMissingOrNullComponentFailsNamingIt() {
		assertThatThrownBy(() -> decode("{\"email\":\"ada@example.com\"}", WelcomeMail.class))
			.isInstanceOf(PayloadDecodingException.class)
			.hasMessageContaining("'name'");
		assertThatThrownBy(() -> decode("{\"email\":\"ada@example.com\",\"name\":null}", WelcomeMail.class))
			.isInstanceOf(PayloadDecodingException.class)
			.hasMessageContaining("\"name\"");
		assertThatThrownBy(() -> decode("{\"mail\":{\"email\":null,\"name\":\"Ada\"}}", Envelope.class))
			.hasMessageContaining("\"email\"")
			.hasMessageContaining("[\"mail\"]->");
		assertThatThrownBy(() -> decode("{}", Created.class)).hasMessageContaining("'name'");
	}

	@Test
	void nullableAndOptionalComponentsMayBeMissingOrNull() {
		assertThat(decode("{\"email\":\"ada@example.com\"}", Profile.class))
			.isEqualTo(new Profile("ada@example.com", null, Optional.empty(), null));
		assertThat(decode("{\"email\":\"ada@example.com\",\"name\":null,\"nickname\":null,\"team\":null}",
				Profile.class))
			.isEqualTo(new Profile("ada@example.com", null, Optional.empty(), null));
	}

	@Test
	void typesAndPropertiesCanRelaxItThemselves() {
		assertThat(decode("{\"email\":\"ada@example.com\",\"name\":\"Ada\",\"extra\":1}", Tolerant.class))
			.isEqualTo(new Tolerant("ada@example.com", "Ada"));
		assertThat(decode("{\"email\":null}", Skipping.class)).isEqualTo(new Skipping(""));
		// Bean properties keep their class's defaults when missing: only unknown ones fail.
		Bean bean = (Bean) decode("{}", Bean.class);
		assertThat(bean.name).isEqualTo("anonymous");
		assertThatThrownBy(() -> decode("{\"nmae\":\"Ada\"}", Bean.class)).hasMessageContaining("\"nmae\"");
	}

	@Test
	void aLenientHandlerDecodesAsTheApplicationsMapperDoes() {
		assertThat(this.codec.decode("{\"customer\":\"acme\",\"copies\":7}", this.codec.type(WelcomeMail.class),
				"mail.welcome", true))
			.isEqualTo(new WelcomeMail(null, null));
	}

	@Test
	void theApplicationsMapperSettingsStillApply() {
		PayloadCodec snakeCase = new PayloadCodec(
				JsonMapper.builder().propertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE).build(), 4096);
		assertThat(snakeCase.decode("{\"first_name\":\"Ada\"}", snakeCase.type(Named.class), "named"))
			.isEqualTo(new Named("Ada"));
		assertThatThrownBy(() -> snakeCase.decode("{\"first_name\":\"Ada\",\"firstName\":\"Ada\"}", snakeCase.type(Named.class), "named"))
			.hasMessageContaining("\"firstName\"");
		assertThat(snakeCase.encodePayload(new Named("Ada"), "named")).isEqualTo("{\"first_name\":\"Ada\"}");
	}

	private @Nullable Object decode(String json, Class<?> type) {
		return this.codec.decode(json, this.codec.type(type), "mail.welcome");
	}

	record WelcomeMail(String email, String name) {
	}

	record Envelope(WelcomeMail mail) {
	}

	record Profile(String email, @Nullable String name, Optional<String> nickname, @Nullable Team team) {
	}

	record Team(String name) {
	}

	record Named(String firstName) {
	}

	@JsonIgnoreProperties(ignoreUnknown = true)
	record Tolerant(String email, String name) {
	}

	record Skipping(@JsonSetter(nulls = Nulls.AS_EMPTY) String email) {
	}

	static final class Bean {

		String name = "anonymous";

		public void setName(String name) {
			this.name = name;
		}

	}

	static final class Created {

		final String name;

		@JsonCreator
		Created(@JsonProperty("name") String name) {
			this.name = name;
		}

	}

}
