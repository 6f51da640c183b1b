package io.github.distlock.benchmarks.jdbc;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.Statement;
import java.util.concurrent.atomic.LongAdder;

import javax.sql.DataSource;

/**
 * Counts the SQL statements a system sends and the transactions it commits, by wrapping the real pool: what each
 * lock costs the database, the same way for every system.
 */
final class StatementCounter {

	final LongAdder statements = new LongAdder();

	final LongAdder commits = new LongAdder();

	DataSource wrap(DataSource target) {
		return proxy(DataSource.class, target, (method, result) -> (result instanceof Connection connection)
				? proxy(Connection.class, connection, this::onConnection) : result);
	}

	private Object onConnection(Method method, Object result) {
		if (method.getName().equals("commit")) {
			this.commits.increment();
		}
		if (result instanceof Statement statement) {
			Class<?> type = (result instanceof java.sql.PreparedStatement) ? java.sql.PreparedStatement.class
					: Statement.class;
			return proxy(type, statement, (m, r) -> {
				if (m.getName().startsWith("execute")) {
					this.statements.increment();
				}
				return r;
			});
		}
		return result;
	}

	@SuppressWarnings("unchecked")
	private static <T> T proxy(Class<T> type, Object target, After after) {
		InvocationHandler handler = (proxy, method, args) -> {
			if (method.getName().equals("unwrap") || method.getName().equals("isWrapperFor")) {
				return method.invoke(target, args);
			}
			try {
				return after.apply(method, method.invoke(target, args));
			}
			catch (InvocationTargetException ex) {
				throw ex.getCause();
			}
		};
		return (T) Proxy.newProxyInstance(StatementCounter.class.getClassLoader(), new Class<?>[] { type }, handler);
	}

	@FunctionalInterface
	private interface After {

		Object apply(Method method, Object result) throws Throwable;

	}

}
