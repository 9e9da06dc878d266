package io.sqlqueue.internal.handler;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Type;

import org.jspecify.annotations.Nullable;

import tools.jackson.databind.JavaType;

import org.springframework.util.ReflectionUtils;

import io.sqlqueue.JobContext;
import io.sqlqueue.PayloadCodec;
import io.sqlqueue.handler.JobInvoker;

/**
 * Calls a handler method: at most one payload parameter (decoded from JSON into its
 * declared, possibly generic, type; strictly unless the handler is lenient, see
 * {@link PayloadCodec}) and at most one {@link JobContext}, in either order.
 */
public final class MethodJobInvoker implements JobInvoker {

	private final Object target;

	private final Method method;

	private final String handler;

	private final PayloadCodec codec;

	private final int payloadIndex;

	private final @Nullable JavaType payloadType;

	private final int contextIndex;

	private final boolean lenientPayload;

	/** An invoker that decodes payloads strictly. */
	public MethodJobInvoker(Object target, Method method, String handler, PayloadCodec codec) {
		this(target, method, handler, codec, false);
	}

	/**
	 * @param lenientPayload whether payloads decode leniently: unknown properties ignored and
	 * missing ones {@code null}, for a handler whose type changes while jobs of its old shape wait
	 */
	public MethodJobInvoker(Object target, Method method, String handler, PayloadCodec codec,
			boolean lenientPayload) {
		this.target = target;
		this.method = method;
		this.handler = handler;
		this.codec = codec;
		int payload = -1;
		int context = -1;
		Type[] types = method.getGenericParameterTypes();
		for (int i = 0; i < types.length; i++) {
			if (method.getParameterTypes()[i] == JobContext.class) {
				if (context >= 0) {
					throw invalid(method, "it takes more than one JobContext");
				}
				context = i;
			}
			else {
				if (payload >= 0) {
					throw invalid(method, "it takes more than one payload parameter (wrap them in one record)");
				}
				payload = i;
			}
		}
		this.payloadIndex = payload;
		this.payloadType = (payload >= 0) ? codec.type(types[payload]) : null;
		this.contextIndex = context;
		this.lenientPayload = lenientPayload;
		ReflectionUtils.makeAccessible(method);
	}

	private static IllegalStateException invalid(Method method, String reason) {
		return new IllegalStateException("@JobHandler method " + method.toGenericString()
				+ " cannot be a handler: " + reason + ". Expected parameters: (payload), (JobContext), "
				+ "(payload, JobContext) or none");
	}

	@Override
	public @Nullable Object invoke(String payload, JobContext context) throws Exception {
		Object[] args = new Object[this.method.getParameterCount()];
		if (this.payloadType != null) {
			args[this.payloadIndex] = this.codec.decode(payload, this.payloadType, this.handler,
					this.lenientPayload);
		}
		if (this.contextIndex >= 0) {
			args[this.contextIndex] = context;
		}
		try {
			return this.method.invoke(this.target, args);
		}
		catch (InvocationTargetException ex) {
			Throwable cause = ex.getCause();
			if (cause instanceof Exception exception) {
				throw exception;
			}
			if (cause instanceof Error error) {
				throw error;
			}
			throw ex;
		}
	}

	@Override
	public String toString() {
		return this.method.toGenericString();
	}

}
