package io.sqlqueue.test;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.util.function.BiConsumer;

import javax.sql.DataSource;

/** Data sources whose connections let a test see, or act between, the calls made on them. */
public final class ConnectionHooks {

	private ConnectionHooks() {
	}

	/**
	 * {@code dataSource}, whose connections run {@code hook} with the name and arguments of
	 * each call made on them, before they make it.
	 */
	public static DataSource before(DataSource dataSource, BiConsumer<String, Object[]> hook) {
		ClassLoader loader = ConnectionHooks.class.getClassLoader();
		return (DataSource) Proxy.newProxyInstance(loader, new Class<?>[] { DataSource.class },
				(proxy, method, args) -> {
					Object result = invoke(method, dataSource, args);
					if (!(result instanceof Connection connection)) {
						return result;
					}
					return Proxy.newProxyInstance(loader, new Class<?>[] { Connection.class },
							(connectionProxy, call, callArgs) -> {
								hook.accept(call.getName(), (callArgs != null) ? callArgs : new Object[0]);
								return invoke(call, connection, callArgs);
							});
				});
	}

	private static Object invoke(Method method, Object target, Object[] args) throws Throwable {
		try {
			return method.invoke(target, args);
		}
		catch (InvocationTargetException ex) {
			throw ex.getCause();
		}
	}

}
