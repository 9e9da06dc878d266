package io.sqlqueue;

import java.lang.reflect.Type;
import java.nio.charset.StandardCharsets;

import org.jspecify.annotations.Nullable;

import tools.jackson.core.JacksonException;
import tools.jackson.databind.JavaType;
import tools.jackson.databind.json.JsonMapper;

/**
 * Payloads and results as JSON, through Jackson 3. JSON only: no Java serialization and no
 * type names taken from the payload (polymorphic typing from data is a remote-code-execution
 * hole), so a payload decodes only into the type the handler declares.
 * <p>
 * Payloads decode strictly unless a handler asks otherwise: through a copy of the mapper
 * that refuses unknown properties and missing or {@code null} creator parameters (record
 * components) that are neither {@code @Nullable} nor {@code Optional}, so that a payload of
 * another shape fails its job instead of running the handler with nulls. A lenient
 * handler's payloads decode through a copy that ignores unknown properties. The mapper
 * itself (the application's, with its settings as they are) encodes, and decodes results.
 */
public class PayloadCodec {

	/** The default largest encoded payload: 1 MiB. */
	public static final int DEFAULT_MAX_PAYLOAD_BYTES = 1024 * 1024;

	private final JsonMapper mapper;

	private final JsonMapper strictMapper;

	private final JsonMapper lenientMapper;

	private final int maxPayloadBytes;

	public PayloadCodec(JsonMapper mapper, int maxPayloadBytes) {
		if (maxPayloadBytes < 1) {
			throw new IllegalArgumentException("maxPayloadBytes must be positive");
		}
		this.mapper = mapper;
		this.strictMapper = StrictPayloads.strict(mapper);
		this.lenientMapper = StrictPayloads.lenient(mapper);
		this.maxPayloadBytes = maxPayloadBytes;
	}

	public PayloadCodec() {
		this(JsonMapper.builder().build(), DEFAULT_MAX_PAYLOAD_BYTES);
	}

	/** Encodes a payload to enqueue, within the size limit, or throws {@link InvalidJobException}. */
	public String encodePayload(@Nullable Object payload, String handler) {
		String json;
		try {
			json = this.mapper.writeValueAsString(payload);
		}
		catch (JacksonException ex) {
			throw new InvalidJobException("The payload of a '" + handler + "' job cannot be encoded as JSON: "
					+ ex.getOriginalMessage(), ex);
		}
		// UTF-8 has at most 3 bytes per UTF-16 char: only long strings need counting.
		if (json.length() * 3L > this.maxPayloadBytes) {
			int bytes = json.getBytes(StandardCharsets.UTF_8).length;
			if (bytes > this.maxPayloadBytes) {
				throw new InvalidJobException("The payload of a '" + handler + "' job is " + bytes
						+ " bytes of JSON, over the limit of " + this.maxPayloadBytes
						+ " (sqlqueue.payload-max-size); store large data elsewhere and enqueue a reference");
			}
		}
		return json;
	}

	/** Encodes a handler's result; {@code null} stays {@code null}. */
	public @Nullable String encodeResult(@Nullable Object result) {
		return (result != null) ? this.mapper.writeValueAsString(result) : null;
	}

	public JavaType type(Type type) {
		return this.mapper.getTypeFactory().constructType(type);
	}

	/**
	 * Decodes a stored payload strictly, or throws {@link PayloadDecodingException} saying why
	 * it cannot.
	 */
	public @Nullable Object decode(String payload, JavaType type, String handler) {
		return decode(payload, type, handler, false);
	}

	/**
	 * Decodes a stored payload, strictly unless {@code lenient} (then unknown properties are
	 * ignored, and missing or {@code null} ones are decoded as the mapper is configured to:
	 * by default {@code null}, or a primitive's zero), or throws
	 * {@link PayloadDecodingException} saying why it cannot.
	 */
	public @Nullable Object decode(String payload, JavaType type, String handler, boolean lenient) {
		try {
			return (lenient ? this.lenientMapper : this.strictMapper).readValue(payload, type);
		}
		catch (JacksonException ex) {
			String why = "The payload cannot be decoded as " + type.toCanonical() + " for handler '" + handler
					+ "': " + ex.getOriginalMessage();
			if (ex.getPath().size() > 1) {
				why += " (at " + ex.getPathReference() + ")";
			}
			if (!lenient && decodesLeniently(payload, type)) {
				why += "; a handler that accepts payloads of other shapes (while its type evolves) declares "
						+ "@JobHandler(lenientPayload = true), or the field @Nullable";
			}
			throw new PayloadDecodingException(why, ex);
		}
	}

	/** Whether the payload fails only strict decoding, so the message can say how to relax it. */
	private boolean decodesLeniently(String payload, JavaType type) {
		try {
			this.lenientMapper.readValue(payload, type);
			return true;
		}
		catch (JacksonException ex) {
			return false;
		}
	}

	/**
	 * Decodes a stored result for whoever awaited its job.
	 * @throws IllegalArgumentException saying why the result does not decode as {@code type}
	 */
	public <T> @Nullable T decodeResult(String result, Class<T> type, long jobId) {
		try {
			return this.mapper.readValue(result, type);
		}
		catch (JacksonException ex) {
			throw new IllegalArgumentException("The result of job " + jobId + " cannot be decoded as "
					+ type.getName() + ": " + ex.getOriginalMessage(), ex);
		}
	}

	/**
	 * Decodes the payload of a signal for the job that awaits it.
	 * @throws PayloadDecodingException naming the signal and the type, when the payload does
	 * not decode as {@code type}: the job cannot ever take that signal (a second one of the
	 * name is refused), so no retry can help
	 */
	public <T> @Nullable T decodeSignal(String payload, Class<T> type, String name, long jobId) {
		try {
			return this.mapper.readValue(payload, type);
		}
		catch (JacksonException ex) {
			throw new PayloadDecodingException("The signal '" + name + "' of job " + jobId + " cannot be decoded as "
					+ type.getName() + ", the type the job awaits it as: " + ex.getOriginalMessage() + ". It was sent "
					+ "as " + abbreviate(payload) + "; a job takes one signal of a name, so it fails without retries. "
					+ "Send the signal as the type the handler's awaitSignal(\"" + name + "\", "
					+ type.getSimpleName() + ".class, ...) names.", ex);
		}
	}

	/** A stored JSON text short enough for a message. */
	private static String abbreviate(String json) {
		return (json.length() <= 200) ? json : json.substring(0, 200) + "... (" + json.length() + " characters)";
	}

	public int maxPayloadBytes() {
		return this.maxPayloadBytes;
	}

}
