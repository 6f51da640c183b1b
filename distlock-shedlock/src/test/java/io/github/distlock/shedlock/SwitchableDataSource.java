package io.github.distlock.shedlock;

import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.util.logging.Logger;

import javax.sql.DataSource;

/**
 * A data source that can be made unreachable: a new connection then fails as a refused TCP connection does (SQL
 * state 08001), which is how the engine sees a database that is down.
 */
final class SwitchableDataSource implements DataSource {

	private final DataSource target;

	private volatile boolean unreachable;

	SwitchableDataSource(DataSource target) {
		this.target = target;
	}

	void unreachable(boolean unreachable) {
		this.unreachable = unreachable;
	}

	@Override
	public Connection getConnection() throws SQLException {
		check();
		return this.target.getConnection();
	}

	@Override
	public Connection getConnection(String username, String password) throws SQLException {
		check();
		return this.target.getConnection(username, password);
	}

	private void check() throws SQLException {
		if (this.unreachable) {
			throw new SQLException("Connection to 127.0.0.1:5432 refused (test)", "08001");
		}
	}

	@Override
	public PrintWriter getLogWriter() throws SQLException {
		return this.target.getLogWriter();
	}

	@Override
	public void setLogWriter(PrintWriter out) throws SQLException {
		this.target.setLogWriter(out);
	}

	@Override
	public void setLoginTimeout(int seconds) throws SQLException {
		this.target.setLoginTimeout(seconds);
	}

	@Override
	public int getLoginTimeout() throws SQLException {
		return this.target.getLoginTimeout();
	}

	@Override
	public Logger getParentLogger() throws SQLFeatureNotSupportedException {
		return this.target.getParentLogger();
	}

	@Override
	public <T> T unwrap(Class<T> iface) throws SQLException {
		return this.target.unwrap(iface);
	}

	@Override
	public boolean isWrapperFor(Class<?> iface) throws SQLException {
		return this.target.isWrapperFor(iface);
	}

}
